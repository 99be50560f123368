// Package v1install judges each bundle as OLM v1's installer does: operator-controller's
// applier.RegistryV1ManifestProvider with registryv1.Renderer (webhook support on, the cert-manager
// certificate provider), at the default feature gates and again with SingleOwnNamespaceInstallSupport
// on, plus what resolve.NoDependencyValidation says of the bundle's dependency properties. The
// rules and their error texts are read from operator-controller's code at df2c201d (2026-08-21):
// internal/operator-controller/applier/provider.go, rukpak/bundle, rukpak/render and its
// registryv1 validators and generators, config (the watchNamespace schema), resolve/validation.go.
//
// A catalog carries a bundle's manifests as olm.bundle.object properties, or only a CSV skeleton
// as olm.csv.metadata: the bundle is judged from the first where it has any (Verdict.Source says
// which). From a skeleton only the install modes and owned APIServices can be judged; webhooks,
// deployments and CRDs are in the bundle image, which olmcat does not pull.
package v1install

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// Source is what a verdict was judged from.
type Source string

const (
	// SourceBundleObject: the bundle's manifests, from its olm.bundle.object properties.
	SourceBundleObject Source = "bundle.object"
	// SourceCSVMetadata: a CSV skeleton made of its olm.csv.metadata property.
	SourceCSVMetadata Source = "csv.metadata"
	// SourceNone: the catalog holds neither; only the dependency properties are judged.
	SourceNone Source = ""
)

// Namespaces are the install namespace of the ClusterExtension tried with the gate on, and the
// other namespace tried as watchNamespace. Error texts name them.
type Namespaces struct {
	Install string
	Other   string
}

// DefaultNamespaces are the namespaces a verdict is judged with when none are given.
var DefaultNamespaces = Namespaces{Install: "install-namespace", Other: "another-namespace"}

// GateWatch says which configuration the installer accepts with SingleOwnNamespaceInstallSupport on.
type GateWatch int

const (
	// GateRefused: no configuration tried is accepted (or the bundle was not judged).
	GateRefused GateWatch = iota
	// GateNoConfig: the bundle installs with no configuration.
	GateNoConfig
	// GateWatchInstallNamespace: with watchNamespace set to the install namespace (OwnNamespace).
	GateWatchInstallNamespace
	// GateWatchOtherNamespace: with watchNamespace set to another namespace (SingleNamespace).
	GateWatchOtherNamespace
)

// Verdict is OLM v1's answer for one bundle; its JSON is a line of the recorded install.jsonl
// (../shared/conformance/olmv1) less the catalog and package.
type Verdict struct {
	Bundle string `json:"bundle"`
	Source Source `json:"source,omitempty"`
	// OK and Error: the installer at the default feature gates, no configuration.
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// OKWithGate, ErrorWithGate and GateConfig: with SingleOwnNamespaceInstallSupport on, trying no
	// configuration, then watchNamespace = the install namespace, then another namespace; the
	// first accepted is GateConfig (empty for none). ErrorWithGate joins the three refusals:
	// "E1 | CONFIG2: E2 | CONFIG3: E3".
	OKWithGate    bool      `json:"okWithSingleOwnNamespaceGate"`
	ErrorWithGate string    `json:"errorWithSingleOwnNamespaceGate,omitempty"`
	GateConfig    string    `json:"singleOwnNamespaceGateConfig,omitempty"`
	Gate          GateWatch `json:"-"`
	// DependencyError: what NoDependencyValidation says of the bundle (it is never installed then).
	DependencyError string `json:"dependencyError,omitempty"`
	// Webhooks: the CSV defines webhooks, which OLM v1 serves with certificates from cert-manager
	// (or OpenShift's service CA): the cluster needs one of them.
	Webhooks bool `json:"-"`
}

// Judged says whether the installer's rules were applied (the catalog holds manifests or a CSV
// skeleton for the bundle).
func (v Verdict) Judged() bool { return v.Source != SourceNone }

// Installable says whether OLM v1 installs the bundle at the default feature gates: the installer
// accepts it (or could not be judged) and NoDependencyValidation lets it through.
func (v Verdict) Installable() bool { return (v.OK || !v.Judged()) && v.DependencyError == "" }

// Judge judges a bundle at DefaultNamespaces.
func Judge(b *fbc.Bundle) Verdict { return JudgeIn(b, DefaultNamespaces) }

// JudgeIn judges a bundle, the gate-on tries in the namespaces given.
func JudgeIn(b *fbc.Bundle, ns Namespaces) Verdict {
	v := Verdict{Bundle: b.Name}
	if err := DependencyError(b); err != nil {
		v.DependencyError = err.Error()
	}
	src, rv1, err := bundleSource(b)
	v.Source = src
	if src == SourceNone {
		return v
	}
	get := func(gate bool, watch *string) error {
		if err != nil {
			return err // the bundle cannot be read: every try fails alike
		}
		return rv1.get(gate, watch, ns.Install)
	}
	if err == nil {
		v.Webhooks = rv1.hasWebhooks()
	}
	if err := get(false, nil); err != nil {
		v.Error = err.Error()
	} else {
		v.OK = true
	}
	tries := []struct {
		watch *string
		gate  GateWatch
	}{{nil, GateNoConfig}, {&ns.Install, GateWatchInstallNamespace}, {&ns.Other, GateWatchOtherNamespace}}
	var refusals []string
	for _, t := range tries {
		err := get(true, t.watch)
		config := ""
		if t.watch != nil {
			config = watchConfig(*t.watch)
		}
		if err == nil {
			v.OKWithGate, v.Gate, v.GateConfig = true, t.gate, config
			break
		}
		if config != "" {
			refusals = append(refusals, config+": "+err.Error())
		} else {
			refusals = append(refusals, err.Error())
		}
	}
	if !v.OKWithGate {
		v.ErrorWithGate = strings.Join(refusals, " | ")
	}
	return v
}

// watchConfig is the ClusterExtension's inline configuration setting watchNamespace.
func watchConfig(ns string) string {
	b, _ := json.Marshal(map[string]string{"watchNamespace": ns})
	return string(b)
}

// DependencyError is operator-controller's resolve.NoDependencyValidation: a bundle with an
// olm.package.required, olm.gvk.required or olm.constraint property is refused (the first such
// property is named), whatever the catalogs provide.
func DependencyError(b *fbc.Bundle) error {
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypePackageRequired, property.TypeGVKRequired, property.TypeConstraint:
			return fmt.Errorf("bundle %q has a dependency declared via property %q which is currently not supported", b.Name, p.Type)
		}
	}
	return nil
}
