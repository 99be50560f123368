// Package crdsafety judges whether the CustomResourceDefinitions of one bundle may replace those an
// earlier bundle of the same package installed, with the checks OLM runs on an upgrade:
//
//   - OLM v1 (operator-controller df2c201d) runs its crdupgradesafety preflight on every CRD of the
//     bundle it is about to apply that already exists on the cluster, and refuses the upgrade on any
//     failure. The preflight is sigs.k8s.io/crdify (the version operator-controller pins, linked here
//     unchanged) with operator-controller's configuration: every crdify validation at enforcement
//     Error except description (not run) and enum (new values allowed), unhandled changes an error,
//     served-version checks skipped when the new CRD converts with a webhook. Its messages are
//     formatted as the preflight formats them (Failure.Message), with its shortening of crdify's
//     "unhandled changes" diff.
//   - OLM v0's catalog operator runs no such preflight. Updating a CRD it refuses when the new CRD
//     drops a version listed in the installed CRD's status.storedVersions ("risk of data loss"), and
//     when an existing custom resource does not validate against the new schema (which depends on
//     the cluster's objects, so olmcat cannot decide it).
//
// The installed CRD is the from-bundle's CRD as the API server keeps it after creating it: status
// cleared and defaulted by apiextensions/v1's own defaulting (conversion strategy None when unset,
// status.storedVersions the storage version). A cluster whose users came through older bundles may
// list more stored versions; olmcat cannot know that history.
package crdsafety

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/crdify/pkg/config"
	"sigs.k8s.io/crdify/pkg/runner"
	"sigs.k8s.io/crdify/pkg/validations/property"
	"sigs.k8s.io/crdify/pkg/validators/version"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
	fbcproperty "github.com/olmcat/olmcat/fbc/property"
)

// The API versions a CustomResourceDefinition manifest may have.
const (
	APIVersionV1      = "apiextensions.k8s.io/v1"
	APIVersionV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// CRD is one CustomResourceDefinition among a bundle's manifests.
type CRD struct {
	Name       string // metadata.name
	APIVersion string // the manifest's apiVersion
	// Err says why the manifest could not be read as an apiextensions.k8s.io/v1 CRD the way
	// operator-controller reads it (nil for one that was; always set for other API versions).
	Err error
	// Fingerprint is the SHA-256 of the manifest's bytes as the bundle carries them, for telling an
	// unchanged CRD.
	Fingerprint [sha256.Size]byte
	def         *apiextensionsv1.CustomResourceDefinition // as OLM v1 renders it; nil when Err
}

// Checkable says whether Check can judge this CRD.
func (c *CRD) Checkable() bool { return c != nil && c.def != nil }

// Manifests are the CRDs a bundle's olm.bundle.object properties carry.
type Manifests struct {
	// Present is true when the bundle carries its manifests (at least one olm.bundle.object with
	// data); a bundle described by olm.csv.metadata only has none, and nothing can be checked.
	Present bool
	CRDs    map[string]*CRD // by name; the first manifest of a name wins, as in a bundle directory listing
	Names   []string        // the names of CRDs, sorted
}

// FromBundle reads the CRDs of a bundle's manifests. Manifests that are not CRDs are read only as
// far as the ClusterServiceVersion's conversion webhooks, which OLM v1 writes into the CRDs they
// convert before the preflight sees them.
func FromBundle(b *fbc.Bundle) *Manifests {
	m := &Manifests{CRDs: map[string]*CRD{}}
	var conversion map[string]bool
	for _, p := range b.Properties {
		if p.Type != fbcproperty.TypeBundleObject {
			continue
		}
		bo, err := fbcproperty.DecodeBundleObject(p.Value)
		if err != nil || len(bo.Data) == 0 {
			continue
		}
		m.Present = true
		switch kindOf(bo.Data) {
		case "":
			continue // neither a CRD nor a CSV: a bundle's other objects are no concern here
		case "CustomResourceDefinition":
			obj, err := decodeObject(bo.Data)
			if err != nil || obj.GetKind() != "CustomResourceDefinition" {
				continue // not a manifest: the diff and validate report it; it is no CRD
			}
			crd := readCRD(obj, bo.Data)
			if _, dup := m.CRDs[crd.Name]; !dup {
				m.CRDs[crd.Name] = crd
				m.Names = append(m.Names, crd.Name)
			}
		case "ClusterServiceVersion":
			if conversion == nil {
				conversion = conversionCRDs(bo.Data)
			}
		}
	}
	sort.Strings(m.Names)
	for name := range conversion {
		if c := m.CRDs[name]; c.Checkable() {
			// registryv1 generators.BundleCRDGenerator: a CRD a conversion webhook of the CSV names
			// gets that webhook as its conversion strategy. Only the strategy matters to the checks.
			c.def.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		}
	}
	return m
}

// kindOf tells the objects FromBundle reads, cheaply: "CustomResourceDefinition",
// "ClusterServiceVersion", or "" for any other. A JSON manifest (what opm renders) is read only for
// its kind; its exact decoding then decides. A YAML one is decoded whole.
func kindOf(data []byte) string {
	var head struct {
		Kind string `json:"kind"`
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		if json.Unmarshal(trimmed, &head) != nil {
			return ""
		}
	} else if obj, err := decodeObject(data); err == nil {
		head.Kind = obj.GetKind()
	}
	switch {
	case strings.EqualFold(head.Kind, "CustomResourceDefinition"):
		return "CustomResourceDefinition"
	case strings.EqualFold(head.Kind, "ClusterServiceVersion"):
		return "ClusterServiceVersion"
	}
	return ""
}

// DecodeCRD reads one manifest (JSON or YAML) as a CRD, as FromBundle does; for tests and fuzzing.
func DecodeCRD(data []byte) (*CRD, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	if obj.GetKind() != "CustomResourceDefinition" {
		return nil, fmt.Errorf("manifest is a %q, not a CustomResourceDefinition", obj.GetKind())
	}
	return readCRD(obj, data), nil
}

// decodeObject reads a manifest as Kubernetes' unstructured decoding does (the one operator-
// controller's bundle reader uses): JSON, or YAML turned into JSON, holding an object with a kind.
func decodeObject(data []byte) (*unstructured.Unstructured, error) {
	j := bytes.TrimSpace(data)
	if len(j) == 0 || j[0] != '{' {
		var err error
		if j, err = yaml.YAMLToJSON(data); err != nil {
			return nil, err
		}
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(j); err != nil {
		return nil, err
	}
	return obj, nil
}

// readCRD turns an unstructured CRD into the typed object OLM v1 applies, with the converter
// operator-controller uses (runtime.DefaultUnstructuredConverter: exact field names, unknown
// fields dropped).
func readCRD(obj *unstructured.Unstructured, data []byte) *CRD {
	c := &CRD{Name: obj.GetName(), APIVersion: obj.GetAPIVersion(), Fingerprint: sha256.Sum256(data)}
	if c.APIVersion != APIVersionV1 {
		// operator-controller's preflight checks apiextensions.k8s.io/v1 CRDs only, and no
		// Kubernetes since 1.22 serves apiextensions.k8s.io/v1beta1.
		c.Err = fmt.Errorf("the manifest is %s, and OLM v1's preflight checks %s CustomResourceDefinitions only", orNone(c.APIVersion), APIVersionV1)
		return c
	}
	def := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, def); err != nil {
		c.Err = fmt.Errorf("converting unstructured to CRD object: %w", err)
		return c
	}
	for _, v := range def.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			// crdify dereferences every version's schema; the API server refuses a v1 CRD without
			// one, so no such CRD is ever installed or applied.
			c.Err = fmt.Errorf("version %q has no schema.openAPIV3Schema, which every version of an %s CRD needs", v.Name, APIVersionV1)
			return c
		}
	}
	c.def = def
	return c
}

func orNone(s string) string {
	if s == "" {
		return "of no apiVersion"
	}
	return s
}

// conversionCRDs are the CRD names the CSV's ConversionWebhook definitions name.
func conversionCRDs(csv []byte) map[string]bool {
	j := bytes.TrimSpace(csv)
	if len(j) == 0 || j[0] != '{' { // JSON is read as it is: YAML parsing takes long over a CSV
		var err error
		if j, err = yaml.YAMLToJSON(csv); err != nil {
			return nil
		}
	}
	var doc struct {
		Spec struct {
			WebhookDefinitions []struct {
				Type           string   `json:"type"`
				ConversionCRDs []string `json:"conversionCRDs"`
			} `json:"webhookdefinitions"`
		} `json:"spec"`
	}
	if json.Unmarshal(j, &doc) != nil {
		return nil
	}
	out := map[string]bool{}
	for _, d := range doc.Spec.WebhookDefinitions {
		if d.Type != "ConversionWebhook" {
			continue
		}
		for _, n := range d.ConversionCRDs {
			out[n] = true
		}
	}
	return out
}

// Installed is the CRD as the API server holds it once created from this manifest: the status the
// manifest may carry cleared (the create strategy resets it), then apiextensions/v1's defaulting,
// which records the storage version in status.storedVersions.
func (c *CRD) Installed() *apiextensionsv1.CustomResourceDefinition {
	if !c.Checkable() {
		return nil
	}
	out := c.def.DeepCopy()
	out.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(out)
	return out
}

// StoredVersions are the installed CRD's status.storedVersions (see Installed).
func (c *CRD) StoredVersions() []string {
	if in := c.Installed(); in != nil {
		return in.Status.StoredVersions
	}
	return nil
}

// Failure is one failure of OLM v1's preflight for one CRD.
type Failure struct {
	Check    string // the crdify validation: storedVersionRemoval, enum, required, unhandled, ...
	Version  string // the CRD version ("v1") or served version pair ("v1 -> v2"); "" for CRD-wide checks
	Property string // the property's path (^.spec.foo); "" for CRD-wide checks
	// Message is the failure as the preflight words it inside its error, e.g.
	// "v1: ^.spec.mode: enum: allowed enum values removed" or "scope: scope changed : ...".
	Message string
}

// Preflight is the preflight's error for a CRD with this one failure.
func (f Failure) Preflight(crd string) string {
	return fmt.Sprintf("validating upgrade for CRD %q: %s", crd, f.Message)
}

var (
	preflightOnce   sync.Once
	preflightRunner *runner.Runner
	preflightErr    error
)

// preflightConfig is operator-controller's crdupgradesafety defaultConfig.
func preflightConfig() *config.Config {
	return &config.Config{
		Conversion:           config.ConversionPolicyIgnore,
		UnhandledEnforcement: config.EnforcementPolicyError,
		Validations: []config.ValidationConfig{
			{Name: "description", Enforcement: config.EnforcementPolicyNone},
			{Name: "enum", Enforcement: config.EnforcementPolicyError,
				Configuration: map[string]any{"additionPolicy": property.AdditionPolicyAllow}},
		},
	}
}

// Check runs OLM v1's preflight for one CRD of an upgrade: installed is the from-bundle's CRD (the
// cluster holds it as Installed says), next the to-bundle's. It returns the preflight's failures,
// sorted by message; none means OLM v1 lets this CRD be replaced. An error means a CRD cannot be
// judged (see CRD.Err), or crdify itself failed on it.
func Check(installed, next *CRD) (fails []Failure, err error) {
	switch {
	case installed == nil || next == nil:
		return nil, errors.New("no CRD to compare")
	case !installed.Checkable():
		return nil, installed.Err
	case !next.Checkable():
		return nil, next.Err
	}
	if installed.Fingerprint == next.Fingerprint || equality.Semantic.DeepEqual(installed.def.Spec, next.def.Spec) {
		// The same CRD: crdify finds nothing (no schema differs, every stored version is still
		// there, the served versions' differences are the installed CRD's own), and on a large
		// CRD it takes seconds to say so.
		return nil, nil
	}
	return runPreflight(installed, next)
}

// runPreflight is Check without its shortcut for an unchanged CRD.
func runPreflight(installed, next *CRD) (fails []Failure, err error) {
	preflightOnce.Do(func() {
		preflightRunner, preflightErr = runner.New(preflightConfig(), runner.DefaultRegistry())
	})
	if preflightErr != nil {
		return nil, fmt.Errorf("creating CRD validation runner: %w", preflightErr)
	}
	defer func() {
		// A schema crdify does not expect must not take olmcat down; on a cluster it fails the
		// preflight's reconcile as well.
		if r := recover(); r != nil {
			fails, err = nil, fmt.Errorf("the CRD validation failed on this CRD: %v", r)
		}
	}()
	results := preflightRunner.Run(installed.Installed(), next.def.DeepCopy())
	if !results.HasFailures() {
		return nil, nil
	}
	for _, r := range results.CRDValidation {
		for _, e := range r.Errors {
			fails = append(fails, Failure{Check: r.Name, Message: fmt.Sprintf("%s: %s", r.Name, e)})
		}
	}
	// Same-version results first, then served-version pairs, as the preflight lists them.
	for _, group := range [][]version.VersionedPropertyComparisonResult{results.SameVersionValidation, results.ServedVersionValidation} {
		for _, v := range group {
			for _, p := range v.PropertyComparisons {
				for _, r := range p.ComparisonResults {
					for _, e := range r.Errors {
						switch r.Name {
						case "unhandled":
							e = conciseUnhandledMessage(e)
						case "required":
							e = sortedRequired(e)
						}
						fails = append(fails, Failure{Check: r.Name, Version: v.Version, Property: p.Property,
							Message: fmt.Sprintf("%s: %s: %s: %s", v.Version, p.Property, r.Name, e)})
					}
				}
			}
		}
	}
	// crdify walks maps: its order is not stable, so the failures are sorted.
	slices.SortFunc(fails, func(a, b Failure) int { return strings.Compare(a.Message, b.Message) })
	fails = slices.CompactFunc(fails, func(a, b Failure) bool { return a.Message == b.Message })
	return fails, nil
}

// RemovedStoredVersions are the installed CRD's stored versions the next CRD no longer lists: OLM
// v0's SafeStorageVersionUpgrade refuses the update for each (V0Message words it), sorted.
func RemovedStoredVersions(installed, next *CRD) []string {
	if !installed.Checkable() || !next.Checkable() {
		return nil
	}
	has := map[string]bool{}
	for _, v := range next.def.Spec.Versions {
		has[v.Name] = true
	}
	var out []string
	for _, v := range installed.StoredVersions() {
		if !has[v] && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// V0Message is OLM v0's error when an update of the CRD removes a stored version (catalog
// operator's step for a CRD, lib/crd SafeStorageVersionUpgrade).
func V0Message(crd, version string) string {
	return fmt.Sprintf("risk of data loss updating %q: new CRD removes version %s that is listed as a stored version on the existing CRD", crd, version)
}

// sortedRequired sorts the field list of crdify's "new required fields: [a b]", which it prints
// in a set's random order: the same change then reads the same in every run.
func sortedRequired(msg string) string {
	const head = "new required fields: ["
	if !strings.HasPrefix(msg, head) || !strings.HasSuffix(msg, "]") {
		return msg
	}
	fields := strings.Fields(msg[len(head) : len(msg)-1])
	sort.Strings(fields)
	return head + strings.Join(fields, " ") + "]"
}
