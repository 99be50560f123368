package v1install

import (
	"fmt"
	"strings"
)

// validateConfig is config.UnmarshalConfig's schema check of the inline configuration against
// the schema RegistryV1.GetConfigSchema builds from the install modes (DeploymentConfig off), for
// the only configurations tried here: none ({}), or {"watchNamespace": NS} with NS a valid
// namespace name. The messages are config.formatSchemaError's, from the errors
// santhosh-tekuri/jsonschema v6 reports (BasicOutput: an anyOf unit, then each branch's).
func validateConfig(c *csvSpec, watch *string, installNS string) error {
	own, single := c.has(ownNamespace), c.has(singleNamespace)
	configurable := own || single
	if !configurable {
		// AllNamespaces only: the schema has no watchNamespace (additionalProperties: false)
		if watch != nil {
			return fmt.Errorf("unknown field %q", "watchNamespace")
		}
		return nil
	}
	required := !c.has(allNamespaces)
	if watch == nil {
		if required {
			return fmt.Errorf("required field %q is missing", "watchNamespace")
		}
		return nil
	}
	formatErr := watchFormatError(own, single, *watch, installNS)
	if formatErr == "" {
		return nil
	}
	if required {
		return fmt.Errorf("invalid format for field %q: %s", "watchNamespace", formatErr)
	}
	// optional: anyOf [{type: null}, {type: string, ..., format}] and neither branch matches
	return fmt.Errorf("multiple errors found:\n  - %s", strings.Join([]string{
		fmt.Sprintf("invalid value for field %q", "watchNamespace"),
		fmt.Sprintf("invalid type for field %q: got string, want null", "watchNamespace"),
		fmt.Sprintf("invalid format for field %q: %s", "watchNamespace", formatErr),
	}, "\n  - "))
}

// watchFormatError is the ownNamespaceInstallMode / singleNamespaceInstallMode format check
// (OwnNamespace only: watchNamespace must be the install namespace; SingleNamespace only: it
// must not be), as kind.Format words it; "" when the value passes.
func watchFormatError(own, single bool, watch, installNS string) string {
	switch {
	case own && !single && installNS != "" && watch != installNS:
		return fmt.Sprintf("%s is not valid ownNamespaceInstallMode: invalid value %q: must be %q (the namespace where the operator is installed) because this operator only supports OwnNamespace install mode",
			schemaQuote(watch), watch, installNS)
	case single && !own && installNS != "" && watch == installNS:
		return fmt.Sprintf("%s is not valid singleNamespaceInstallMode: invalid value %q: must be different from %q (the install namespace) because this operator uses SingleNamespace install mode to watch a different namespace",
			schemaQuote(watch), watch, installNS)
	}
	return ""
}

// schemaQuote is jsonschema's kind.quote: Go quoting, with single quotes outside.
func schemaQuote(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}
