package v1install

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
)

// Rule names of the findings (olmcat validate -o json "rule").
const (
	// RuleNotInstallable: a bundle OLM v1 does not install at its default feature gates (its
	// installer refuses it, or NoDependencyValidation refuses its dependency properties).
	RuleNotInstallable = "v1-not-installable"
	// RuleWebhookCertificates: a package whose bundles define webhooks, which OLM v1 serves with
	// certificates from cert-manager or OpenShift's service CA.
	RuleWebhookCertificates = "v1-webhooks-need-certificates"
)

// Severity of v1-not-installable: a warning. The catalog is valid and serves OLM v0 clusters as
// it is; a maintainer moving clusters to OLM v1 must hear of every bundle v1 will not install,
// and --strict fails on it, but a catalog made for OLM v0 must not be called invalid.
const notInstallableSeverity = model.Warning

// Checker is the model.BundleChecker of OLM v1's install check: v1-not-installable per bundle,
// and one v1-webhooks-need-certificates (info) per package with webhooks OLM v1 would install.
// Bundles are judged on every processor while the catalog streams by: CheckBundle copies the
// properties the check reads (the caller reuses the bundle's memory) and hands them to a worker;
// Finish waits for the workers and returns every finding.
type Checker struct {
	jobs    chan checkJob
	wg      sync.WaitGroup
	mu      sync.Mutex
	issues  model.Issues
	webhook map[string]webhookNote // package -> its first installable bundle with webhooks
	seq     int
}

type checkJob struct {
	seq    int
	bundle *fbc.Bundle
	buf    *[]byte // holds the copied property values; back to jobBuffers once judged
}

// jobBuffers hold the copies of the properties handed to the workers: a catalog's manifests are
// most of its bytes, copied once each, and reusing the buffers spares the collector that much.
var jobBuffers = sync.Pool{New: func() any { return new([]byte) }}

type webhookNote struct {
	seq   int
	issue *model.Issue
}

// NewChecker starts a check over one catalog; call Finish once the catalog is through.
func NewChecker() *Checker {
	workers := runtime.GOMAXPROCS(0)
	c := &Checker{jobs: make(chan checkJob, 2*workers), webhook: map[string]webhookNote{}}
	for range workers {
		c.wg.Add(1)
		go c.work()
	}
	return c
}

// NewInlineChecker is a Checker that judges each bundle as CheckBundle is called, on the caller's
// goroutine, with no copy: for callers that already validate on every processor (diff validates
// its packages in parallel), where workers of their own would only add goroutines and copies.
func NewInlineChecker() *Checker {
	return &Checker{webhook: map[string]webhookNote{}}
}

func (c *Checker) work() {
	defer c.wg.Done()
	for j := range c.jobs {
		c.judge(j.seq, j.bundle)
		*j.buf = (*j.buf)[:0]
		jobBuffers.Put(j.buf)
	}
}

// judge records what OLM v1's installer says of one bundle, the seq-th handed over.
func (c *Checker) judge(seq int, b *fbc.Bundle) {
	v := Judge(b)
	i := NotInstallable(b, v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if i != nil {
		c.issues = append(c.issues, i)
	}
	if v.Webhooks && v.OK && v.DependencyError == "" {
		if n, seen := c.webhook[b.Package]; !seen || seq < n.seq {
			c.webhook[b.Package] = webhookNote{seq: seq, issue: webhookIssue(b)}
		}
	}
}

// CheckBundle hands a copy of what the check reads of the bundle to a worker; its findings come
// with Finish.
func (c *Checker) CheckBundle(b *fbc.Bundle) model.Issues {
	if c.jobs == nil { // NewInlineChecker
		c.seq++
		c.judge(c.seq, b)
		return nil
	}
	cp := &fbc.Bundle{Schema: b.Schema, Name: b.Name, Package: b.Package, Loc: b.Loc}
	buf := jobBuffers.Get().(*[]byte)
	size := 0
	for _, p := range b.Properties {
		if judgedProperty(p.Type) {
			size += len(p.Value)
		}
	}
	if cap(*buf) < size {
		*buf = make([]byte, 0, size)
	}
	for _, p := range b.Properties {
		if judgedProperty(p.Type) {
			start := len(*buf)
			*buf = append(*buf, p.Value...)
			cp.Properties = append(cp.Properties, fbc.Property{Type: p.Type, Value: (*buf)[start:len(*buf):len(*buf)]})
		}
	}
	c.seq++
	c.jobs <- checkJob{seq: c.seq, bundle: cp, buf: buf}
	return nil
}

// judgedProperty says whether the install check reads properties of this type.
func judgedProperty(t string) bool {
	switch t {
	case property.TypeBundleObject, property.TypeCSVMetadata,
		property.TypePackageRequired, property.TypeGVKRequired, property.TypeConstraint:
		return true
	}
	return false
}

// Finish waits for the bundles handed over and returns the findings (in no particular order:
// the validator sorts them).
func (c *Checker) Finish() model.Issues {
	if c.jobs != nil {
		close(c.jobs)
		c.wg.Wait()
	}
	out := c.issues
	pkgs := make([]string, 0, len(c.webhook))
	for p := range c.webhook {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		out = append(out, c.webhook[p].issue)
	}
	return out
}

func webhookIssue(b *fbc.Bundle) *model.Issue {
	return (&model.Issue{
		Severity: model.Info, Rule: RuleWebhookCertificates, Loc: b.Loc, File: b.Loc.File, Line: b.Loc.Line,
		Package: b.Package, Bundle: b.Name,
		Message: "the bundle's CSV defines webhooks (and maybe other bundles of the package): OLM v1 serves them with certificates " +
			"from cert-manager, or OpenShift's service CA, and installs such bundles only where one of them runs (judged from its olm.bundle.object manifests)",
		Hint: "install cert-manager on OLM v1 clusters that are not OpenShift",
	}).ForOLM(model.OLMv1)
}

// NotInstallable is the v1-not-installable finding of a bundle's verdict, nil when OLM v1
// installs it (or could not judge it and it has no dependency properties).
func NotInstallable(b *fbc.Bundle, v Verdict) *model.Issue {
	if v.Installable() {
		return nil
	}
	var reasons, hints []string
	if v.Judged() && !v.OK {
		r := fmt.Sprintf("OLM v1's installer refuses it: %s (judged from its %s)", oneLine(v.Error), sourceWords(v.Source))
		switch v.Gate {
		case GateNoConfig:
			r += "; with the SingleOwnNamespaceInstallSupport feature gate on, it installs with no configuration"
		case GateWatchInstallNamespace:
			r += "; with the SingleOwnNamespaceInstallSupport feature gate on, it installs with watchNamespace set to the install namespace (OwnNamespace)"
		case GateWatchOtherNamespace:
			r += "; with the SingleOwnNamespaceInstallSupport feature gate on, it installs with watchNamespace set to another namespace than the install namespace (SingleNamespace)"
		default:
			r += "; the SingleOwnNamespaceInstallSupport feature gate does not help: with it on and no configuration, " + oneLine(firstRefusal(v.ErrorWithGate))
		}
		reasons = append(reasons, r)
		hints = append(hints, installHint(v))
	}
	if v.DependencyError != "" {
		reasons = append(reasons, "OLM v1 refuses to resolve to it: "+v.DependencyError+" (resolve.NoDependencyValidation: OLM v1 installs no dependencies, not even those the catalog provides)")
		hints = append(hints, "OLM v1 users must install what it requires themselves; ship a bundle without olm.package.required, olm.gvk.required and olm.constraint properties for them")
	}
	return (&model.Issue{
		Severity: notInstallableSeverity, Rule: RuleNotInstallable, Loc: b.Loc, File: b.Loc.File, Line: b.Loc.Line,
		Package: b.Package, Bundle: b.Name,
		Message: strings.Join(reasons, "; and "),
		Hint:    strings.Join(hints, "; "),
	}).ForOLM(model.OLMv1)
}

// oneLine keeps operator-controller's words on one line: the validators' errors, joined by
// errors.Join, are one per line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", "; ") }

func sourceWords(s Source) string {
	if s == SourceCSVMetadata {
		return "olm.csv.metadata, a CSV skeleton: its install modes and owned APIServices are judged, its webhooks and CRDs are in the bundle image"
	}
	return "olm.bundle.object manifests"
}

// firstRefusal is the refusal of the first configuration tried with the gate on (no configuration).
func firstRefusal(errorWithGate string) string {
	if i := strings.Index(errorWithGate, " | "); i >= 0 {
		return errorWithGate[:i]
	}
	return errorWithGate
}

func installHint(v Verdict) string {
	switch {
	case strings.Contains(v.Error, "does not support AllNamespaces install mode") && v.OKWithGate:
		return "support the AllNamespaces install mode in the CSV, or have OLM v1 users enable SingleOwnNamespaceInstallSupport and set watchNamespace in the ClusterExtension's config"
	case strings.Contains(v.Error, "install mode"):
		return "support the AllNamespaces install mode in the CSV (OLM v1 installs AllNamespaces operators, and with the gate OwnNamespace and SingleNamespace ones; never MultiNamespace-only)"
	case strings.Contains(v.Error, "apiServiceDefintions"):
		return "OLM v1 does not install bundles that own APIServices; serve the API from a CRD for OLM v1 users"
	}
	return "fix the bundle as OLM v1's message says, or keep it for OLM v0 clusters"
}
