package v1install

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	allNamespaces   = "AllNamespaces"
	singleNamespace = "SingleNamespace"
	ownNamespace    = "OwnNamespace"
	multiNamespace  = "MultiNamespace"
	conversionType  = "ConversionWebhook"
	admissionGroup  = "admissionregistration.k8s.io"
)

// has is sets.New(csv.Spec.InstallModes...).Has(InstallMode{Type: t, Supported: true}).
func (c *csvSpec) has(t string) bool {
	return slices.Contains(c.installModes, installMode{Type: t, Supported: true})
}

// supportedModes is render's supportedBundleInstallModes: the types of the supported install
// modes, sorted as sets.List sorts them.
func (c *csvSpec) supportedModes() []string {
	set := map[string]bool{}
	for _, im := range c.installModes {
		if im.Supported {
			set[im.Type] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// get is RegistryV1ManifestProvider.Get (IsWebhookSupportEnabled, a certificate provider,
// IsDeploymentConfigEnabled off) for a ClusterExtension installed in installNS, its inline
// configuration setting watchNamespace when watch is not nil; gate is
// IsSingleOwnNamespaceEnabled. It returns the error Get returns, as the ClusterExtension's status
// says it (errorutil.UnwrapTerminal: without controller-runtime's "terminal error: ").
func (rv1 *registryV1) get(gate bool, watch *string, installNS string) error {
	c := &rv1.csv
	if c.ownedAPIServices > 0 {
		return errors.New("unsupported bundle: apiServiceDefintions are not supported") // sic
	}
	// webhookDefinitions pass: webhook support is on and the certificate provider is set
	if !gate && !c.has(allNamespaces) {
		return errors.New("unsupported bundle: bundle does not support AllNamespaces install mode")
	}
	if !c.has(allNamespaces) && !c.has(singleNamespace) && !c.has(ownNamespace) {
		return errors.New("unsupported bundle: bundle must support at least one of [AllNamespaces SingleNamespace OwnNamespace] install modes")
	}
	var targets []string // defaultTargetNamespacesForBundle
	if slices.Contains(c.supportedModes(), allNamespaces) {
		targets = []string{""}
	}
	if gate || watch != nil {
		if err := validateConfig(c, watch, installNS); err != nil {
			return fmt.Errorf("invalid ClusterExtension configuration: invalid configuration: %w", err)
		}
		if watch != nil {
			targets = []string{*watch} // render.WithTargetNamespaces
		}
	}
	if err := errors.Join(rv1.validate()...); err != nil {
		return err
	}
	if err := validateTargetNamespaces(c, installNS, targets); err != nil {
		return fmt.Errorf("invalid option(s): %w", fmt.Errorf("invalid target namespaces %v: %w", targets, err))
	}
	return rv1.generate()
}

// validate runs registryv1.BundleValidator: every validator, in its order, errors joined.
func (rv1 *registryV1) validate() []error {
	var errs []error
	for _, check := range []func() []error{
		rv1.checkDeploymentSpecUniqueness,
		rv1.checkDeploymentNameIsDNS1123SubDomain,
		rv1.checkCRDResourceUniqueness,
		rv1.checkOwnedCRDExistence,
		rv1.checkPackageNameNotEmpty,
		rv1.checkConversionWebhookSupport,
		rv1.checkWebhookDeploymentReferentialIntegrity,
		rv1.checkWebhookNameUniqueness,
		rv1.checkWebhookNameIsDNS1123SubDomain,
		rv1.checkConversionWebhookCRDReferenceUniqueness,
		rv1.checkConversionWebhooksReferenceOwnedCRDs,
		rv1.checkWebhookRules,
		rv1.checkObjectSupport,
	} {
		errs = append(errs, check()...)
	}
	return errs
}

// duplicates returns the values seen more than once, sorted.
func duplicates(values []string) []string {
	seen, dup := map[string]bool{}, map[string]bool{}
	for _, v := range values {
		if seen[v] {
			dup[v] = true
		}
		seen[v] = true
	}
	return slices.Sorted(maps.Keys(dup))
}

func (rv1 *registryV1) checkDeploymentSpecUniqueness() []error {
	var errs []error
	for _, d := range duplicates(rv1.csv.deployments) {
		errs = append(errs, fmt.Errorf("cluster service version contains duplicate strategy deployment spec '%s'", d))
	}
	return errs
}

// dns1123Errors is validation.IsDNS1123Subdomain, its messages sorted.
func dns1123Errors(name string) []string {
	errs := validation.IsDNS1123Subdomain(name)
	slices.Sort(errs)
	return errs
}

func (rv1 *registryV1) checkDeploymentNameIsDNS1123SubDomain() []error {
	bad := map[string][]string{}
	for _, d := range rv1.csv.deployments {
		if errs := dns1123Errors(d); len(errs) > 0 {
			bad[d] = errs
		}
	}
	var errs []error
	for _, d := range slices.Sorted(maps.Keys(bad)) {
		errs = append(errs, fmt.Errorf("invalid cluster service version strategy deployment name '%s': %s", d, strings.Join(bad[d], ", ")))
	}
	return errs
}

func (rv1 *registryV1) crdNames() []string {
	names := make([]string, len(rv1.crds))
	for i, c := range rv1.crds {
		names[i] = c.name
	}
	return names
}

func (rv1 *registryV1) checkOwnedCRDExistence() []error {
	have := map[string]bool{}
	for _, n := range rv1.crdNames() {
		have[n] = true
	}
	missing := map[string]bool{}
	for _, n := range rv1.csv.ownedCRDs {
		if !have[n] {
			missing[n] = true
		}
	}
	var errs []error
	for _, n := range slices.Sorted(maps.Keys(missing)) {
		errs = append(errs, fmt.Errorf("cluster service definition references owned custom resource definition '%s' not found in bundle", n))
	}
	return errs
}

func (rv1 *registryV1) checkCRDResourceUniqueness() []error {
	var errs []error
	for _, n := range duplicates(rv1.crdNames()) {
		errs = append(errs, fmt.Errorf("bundle contains duplicate custom resource definition '%s'", n))
	}
	return errs
}

func (rv1 *registryV1) checkPackageNameNotEmpty() []error {
	if rv1.packageName == "" {
		return []error{errors.New("package name is empty")}
	}
	return nil
}

func (rv1 *registryV1) checkConversionWebhookSupport() []error {
	var names []string
	for _, w := range rv1.csv.webhooks {
		if w.Type == conversionType {
			names = append(names, w.GenerateName)
		}
	}
	if len(names) == 0 {
		return nil
	}
	modes := rv1.csv.supportedModes()
	if len(modes) == 1 && modes[0] == allNamespaces {
		return nil
	}
	errs := make([]error, len(names))
	for i, n := range names {
		errs[i] = fmt.Errorf("bundle contains conversion webhook %q and supports install modes %v - conversion webhooks are only supported for bundles that only support AllNamespaces install mode", n, modes)
	}
	return errs
}

func (rv1 *registryV1) checkWebhookDeploymentReferentialIntegrity() []error {
	byDeployment := map[string][]webhook{}
	for _, w := range rv1.csv.webhooks {
		byDeployment[w.DeploymentName] = append(byDeployment[w.DeploymentName], w)
	}
	for _, d := range rv1.csv.deployments {
		delete(byDeployment, d)
	}
	var errs []error
	for _, d := range slices.Sorted(maps.Keys(byDeployment)) {
		ws := byDeployment[d]
		slices.SortFunc(ws, func(a, b webhook) int {
			if c := strings.Compare(a.Type, b.Type); c != 0 {
				return c
			}
			return strings.Compare(a.GenerateName, b.GenerateName)
		})
		for _, w := range ws {
			errs = append(errs, fmt.Errorf("webhook of type '%s' with name '%s' references non-existent deployment '%s'", w.Type, w.GenerateName, w.DeploymentName))
		}
	}
	return errs
}

func (rv1 *registryV1) checkWebhookNameUniqueness() []error {
	byType := map[string][]string{}
	for _, w := range rv1.csv.webhooks {
		byType[w.Type] = append(byType[w.Type], w.GenerateName)
	}
	var errs []error
	for _, t := range slices.Sorted(maps.Keys(byType)) {
		for _, n := range duplicates(byType[t]) {
			errs = append(errs, fmt.Errorf("duplicate webhook '%s' of type '%s'", n, t))
		}
	}
	return errs
}

func (rv1 *registryV1) checkWebhookNameIsDNS1123SubDomain() []error {
	bad := map[string]map[string][]string{}
	for _, w := range rv1.csv.webhooks {
		if errs := dns1123Errors(w.GenerateName); len(errs) > 0 {
			if bad[w.Type] == nil {
				bad[w.Type] = map[string][]string{}
			}
			bad[w.Type][w.GenerateName] = errs
		}
	}
	var errs []error
	for _, t := range slices.Sorted(maps.Keys(bad)) {
		for _, n := range slices.Sorted(maps.Keys(bad[t])) {
			errs = append(errs, fmt.Errorf("webhook of type '%s' has invalid name '%s': %s", t, n, strings.Join(bad[t][n], ",")))
		}
	}
	return errs
}

func (rv1 *registryV1) checkConversionWebhookCRDReferenceUniqueness() []error {
	byCRD := map[string][]string{}
	for _, w := range rv1.csv.webhooks {
		if w.Type != conversionType {
			continue
		}
		for _, c := range w.ConversionCRDs {
			byCRD[c] = append(byCRD[c], w.GenerateName)
		}
	}
	var errs []error
	for _, c := range slices.Sorted(maps.Keys(byCRD)) {
		if len(byCRD[c]) == 1 {
			continue
		}
		errs = append(errs, fmt.Errorf("conversion webhooks [%s] reference same custom resource definition '%s'", strings.Join(slices.Sorted(slices.Values(byCRD[c])), ","), c))
	}
	return errs
}

func (rv1 *registryV1) checkConversionWebhooksReferenceOwnedCRDs() []error {
	var conv []webhook
	for _, w := range rv1.csv.webhooks {
		if w.Type == conversionType {
			conv = append(conv, w)
		}
	}
	if len(conv) == 0 {
		return nil
	}
	owned := map[string]bool{}
	for _, n := range rv1.csv.ownedCRDs {
		owned[n] = true
	}
	slices.SortFunc(conv, func(a, b webhook) int { return strings.Compare(a.GenerateName, b.GenerateName) })
	var errs []error
	for _, w := range conv {
		for _, c := range slices.Sorted(slices.Values(w.ConversionCRDs)) {
			if !owned[c] {
				errs = append(errs, fmt.Errorf("conversion webhook '%s' references custom resource definition '%s' not owned bundle", w.GenerateName, c))
			}
		}
	}
	return errs
}

var forbiddenRuleAPIGroups = map[string]bool{"olm.operatorframework.io": true, "*": true}

var forbiddenAdmissionResources = map[string]bool{
	"*": true, "mutatingwebhookconfiguration": true, "mutatingwebhookconfigurations": true,
	"validatingwebhookconfiguration": true, "validatingwebhookconfigurations": true,
}

func (rv1 *registryV1) checkWebhookRules() []error {
	var errs []error
	for _, w := range rv1.csv.webhooks {
		if w.Type == conversionType {
			continue // rules are not used for conversion webhooks
		}
		for _, r := range w.Rules {
			for _, g := range r.APIGroups {
				if forbiddenRuleAPIGroups[g] {
					errs = append(errs, fmt.Errorf("webhook %q contains forbidden rule: admission webhook rules cannot reference API group %q", w.GenerateName, g))
				}
				if g == admissionGroup {
					for _, res := range r.Resources {
						if forbiddenAdmissionResources[strings.ToLower(res)] {
							errs = append(errs, fmt.Errorf("webhook %q contains forbidden rule: admission webhook rules cannot reference resource %q for API group %q", w.GenerateName, res, g))
						}
					}
				}
			}
		}
	}
	return errs
}

// supportedKinds is operator-registry's pkg/lib/bundle supportedResources (v1.73.0, the version
// operator-controller df2c201d builds with).
var supportedKinds = map[string]bool{
	"ClusterServiceVersion": true, "CustomResourceDefinition": true, "ClusterRole": true,
	"ClusterRoleBinding": true, "Service": true, "ServiceAccount": true, "Role": true, "RoleBinding": true,
	"PrometheusRule": true, "ServiceMonitor": true, "Secret": true, "ConfigMap": true,
	"PodDisruptionBudget": true, "PriorityClass": true, "VerticalPodAutoscaler": true,
	"ConsoleYAMLSample": true, "ConsoleQuickStart": true, "ConsoleCLIDownload": true, "ConsoleLink": true,
	"ConsolePlugin": true, "NetworkPolicy": true, "PodMonitor": true,
}

func (rv1 *registryV1) checkObjectSupport() []error {
	var errs []error
	for _, o := range rv1.others {
		if !supportedKinds[o.kind] {
			errs = append(errs, fmt.Errorf("unsupported resource %q with kind %q", o.name, o.kind))
		}
	}
	return errs
}

// validateTargetNamespaces is render's validateTargetNamespaces.
func validateTargetNamespaces(c *csvSpec, installNS string, targets []string) error {
	modes := c.supportedModes()
	supports := func(m string) bool { return slices.Contains(modes, m) }
	set := map[string]bool{}
	for _, t := range targets {
		set[t] = true
	}
	switch {
	case len(set) == 0:
		if supports(multiNamespace) {
			return errors.New("at least one target namespace must be specified")
		}
		return errors.New("exactly one target namespace must be specified")
	case len(set) == 1 && set[""]:
		if supports(allNamespaces) {
			return nil
		}
		return fmt.Errorf("supported install modes %v do not support targeting all namespaces", modes)
	case len(set) == 1 && !set[""]:
		if targets[0] == installNS {
			if !supports(ownNamespace) {
				return fmt.Errorf("supported install modes %v do not support targeting own namespace", modes)
			}
			return nil
		}
		if supports(singleNamespace) {
			return nil
		}
	default:
		if !supports(ownNamespace) && set[installNS] {
			return fmt.Errorf("supported install modes %v do not support targeting own namespace", modes)
		}
		if supports(multiNamespace) && !set[""] {
			return nil
		}
	}
	return fmt.Errorf("supported install modes %v do not support target namespaces %v", modes, targets)
}

// generate is what registryv1.ResourceGenerators can refuse once the validators passed: a CRD a
// conversion webhook converts must not preserve unknown fields (BundleCRDGenerator; a CRD named
// by two conversion webhooks is refused by the validators first).
func (rv1 *registryV1) generate() error {
	converted := map[string]bool{}
	for _, w := range rv1.csv.webhooks {
		if w.Type != conversionType {
			continue
		}
		for _, c := range w.ConversionCRDs {
			if converted[c] {
				return fmt.Errorf("custom resource definition '%s' is referenced by multiple conversion webhook definitions", c)
			}
			converted[c] = true
		}
	}
	for _, c := range rv1.crds {
		if converted[c.name] && c.preserveUnknownFields {
			return fmt.Errorf("custom resource definition '%s' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion", c.name)
		}
	}
	return nil
}

// hasWebhooks says whether the bundle's CSV defines webhooks: OLM v1 then needs a certificate
// provider (cert-manager, or OpenShift's service CA) on the cluster.
func (rv1 *registryV1) hasWebhooks() bool { return len(rv1.csv.webhooks) > 0 }
