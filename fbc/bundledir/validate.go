package bundledir

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
)

// Severity of a Finding.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem found in a bundle directory.
type Finding struct {
	Severity Severity `json:"severity"`
	File     string   `json:"file,omitempty"` // relative to the bundle directory
	Line     int      `json:"line,omitempty"` // 1-based line in File, when known
	Message  string   `json:"message"`
}

func (f Finding) String() string {
	switch {
	case f.File == "":
		return fmt.Sprintf("%s: %s", f.Severity, f.Message)
	case f.Line > 0:
		return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Severity, f.Message)
	}
	return fmt.Sprintf("%s: %s: %s", f.File, f.Severity, f.Message)
}

// Report is the result of Validate.
type Report struct {
	Dir      string    `json:"dir"`
	Findings []Finding `json:"findings"`
}

// Errors counts the findings of severity error.
func (r Report) Errors() int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == SeverityError {
			n++
		}
	}
	return n
}

// ValidateOptions say what to compare the annotations with.
type ValidateOptions struct {
	// Labels are the bundle image's labels; nil skips the comparison.
	Labels map[string]string
	// LabelsFrom names where the labels came from, for messages (a file or an image).
	LabelsFrom string
	// Strict reports every warning as an error.
	Strict bool
}

var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// Validate checks a bundle directory: its layout, its annotations (media type, manifests and
// metadata paths, package, channels, default channel), that a registry+v1 bundle parses (one CSV,
// the CRDs it owns, a semver version), and, given image labels, that they agree with the
// annotations. Per the bundle design, annotations.yaml is authoritative: a mismatching label is
// reported as an error because OLM will use the annotation, not the label.
func Validate(dir string, opts ValidateOptions) Report {
	r := Report{Dir: dir, Findings: []Finding{}}
	add := func(sev Severity, file, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{Severity: sev, File: file, Message: fmt.Sprintf(format, args...)})
	}
	for _, sub := range []string{"manifests", "metadata"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			add(SeverityError, "", "no %s/ directory: a bundle holds manifests/ and metadata/", sub)
		}
	}
	if len(r.Findings) > 0 {
		return r
	}
	md, err := readMetadata(dir, os.DirFS(filepath.Join(dir, "metadata")))
	if err != nil {
		add(SeverityError, "", "%v", err)
		return r
	}
	a := md.annotations
	checkAnnotations(a, add)
	if opts.Labels != nil {
		checkLabels(a, opts, add)
	}
	if mt := a.Values[LabelMediaType]; mt == "" || mt == MediaTypeRegistryV1 {
		checkRegistryV1(&r, dir, add)
	}
	if opts.Strict {
		for i, f := range r.Findings {
			if f.Severity == SeverityWarning {
				r.Findings[i].Severity = SeverityError
			}
		}
	}
	return r
}

type addFunc func(sev Severity, file, format string, args ...any)

func checkAnnotations(a *Annotations, add addFunc) {
	get := func(key string) (string, bool) {
		v, ok := a.Values[key]
		if !ok {
			add(SeverityError, a.File, "missing annotation %s", key)
		}
		return v, ok
	}
	if mt, ok := get(LabelMediaType); ok && !slices.Contains([]string{MediaTypeRegistryV1, MediaTypeHelm, MediaTypePlain}, mt) {
		add(SeverityError, a.File, "%s is %q: use %s, %s or %s", LabelMediaType, mt, MediaTypeRegistryV1, MediaTypeHelm, MediaTypePlain)
	}
	for key, want := range map[string]string{LabelManifests: "manifests", LabelMetadata: "metadata"} {
		if v, ok := get(key); ok && path.Clean(strings.TrimPrefix(strings.TrimSpace(v), "/")) != want {
			add(SeverityError, a.File, "%s is %q: it must be %s/, where the bundle keeps them", key, v, want)
		}
	}
	if pkg, ok := get(LabelPackage); ok {
		switch {
		case pkg == "":
			add(SeverityError, a.File, "%s is empty: it names the bundle's package", LabelPackage)
		case !dns1123Subdomain.MatchString(pkg):
			add(SeverityWarning, a.File, "package name %q is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'); OLM resources named after it may be refused", pkg)
		}
	}
	raw, ok := get(LabelChannels)
	if ok {
		for i, ch := range strings.Split(raw, ",") {
			switch {
			case strings.TrimSpace(ch) == "":
				add(SeverityError, a.File, "%s is %q: channel %d is empty", LabelChannels, raw, i+1)
			case ch != strings.TrimSpace(ch):
				add(SeverityWarning, a.File, "%s is %q: channel %q has spaces around it, which opm keeps in the name", LabelChannels, raw, ch)
			}
		}
	}
	def, hasDefault := a.Values[LabelDefaultChannel]
	switch {
	case !hasDefault || def == "":
		add(SeverityWarning, a.File, "no %s: when this bundle is the newest of its package, the package keeps its current default channel", LabelDefaultChannel)
	case ok && !slices.Contains(a.Channels(), def):
		add(SeverityWarning, a.File, "default channel %q is not one of the bundle's channels %q: adding it to a catalog works only when another bundle provides that channel", def, raw)
	}
}

// checkLabels compares the image labels with the annotations, which win on any disagreement.
func checkLabels(a *Annotations, opts ValidateOptions, add addFunc) {
	from := opts.LabelsFrom
	if from == "" {
		from = "the image"
	}
	for _, key := range CoreLabels {
		label, hasLabel := opts.Labels[key]
		ann, hasAnn := a.Values[key]
		switch {
		case hasLabel && hasAnn && label != ann:
			add(SeverityError, a.File, "label %s is %q in %s but %q in annotations.yaml; OLM uses annotations.yaml, so make the label match", key, label, from, ann)
		case !hasLabel && hasAnn:
			add(SeverityWarning, a.File, "label %s is missing from %s (annotations.yaml has %q); tools that read only labels will not see it", key, from, ann)
		case hasLabel && !hasAnn:
			add(SeverityError, a.File, "label %s=%q in %s has no annotation in annotations.yaml; OLM reads only annotations.yaml", key, label, from)
		}
	}
	for _, key := range sortedKeys(opts.Labels) {
		if slices.Contains(CoreLabels, key) || !strings.HasPrefix(key, "operators.operatorframework.io.") {
			continue
		}
		if ann, ok := a.Values[key]; ok && ann != opts.Labels[key] {
			add(SeverityWarning, a.File, "label %s is %q in %s but %q in annotations.yaml", key, opts.Labels[key], from, ann)
		}
	}
}

func checkRegistryV1(r *Report, dir string, add addFunc) {
	b, err := Parse(dir)
	if err != nil {
		add(SeverityError, "", "%v", err)
		return
	}
	for _, w := range b.Warnings {
		file := w.File
		if rel, err := filepath.Rel(dir, w.File); err == nil {
			file = filepath.ToSlash(rel)
		}
		r.Findings = append(r.Findings, Finding{Severity: SeverityWarning, File: file, Line: w.Line, Message: w.Message})
	}
	switch v := b.CSV.Version; {
	case v == "":
		add(SeverityError, b.CSVFile, "ClusterServiceVersion %q has no spec.version: catalogs order bundles by it", b.CSV.Name)
	default:
		if _, err := semver.Parse(v); err != nil {
			add(SeverityError, b.CSVFile, "ClusterServiceVersion %q: spec.version %q is not semver: %v", b.CSV.Name, v, err)
		}
	}
	if sr := b.CSV.SkipRange; sr != "" {
		if _, err := semver.ParseRange(sr); err != nil {
			add(SeverityError, b.CSVFile, "ClusterServiceVersion %q: olm.skipRange %q is not a semver range: %v", b.CSV.Name, sr, err)
		}
	}
	if _, err := b.Render(""); err != nil {
		add(SeverityError, "", "%v", err)
	}
}

// LabelFindings compares image labels with the bundle's annotations, as Validate does when given
// ValidateOptions.Labels; from names the labels' origin in messages.
func (b *Bundle) LabelFindings(labels map[string]string, from string) []Finding {
	var out []Finding
	checkLabels(&b.Annotations, ValidateOptions{Labels: labels, LabelsFrom: from}, func(sev Severity, file, format string, args ...any) {
		out = append(out, Finding{Severity: sev, File: file, Message: fmt.Sprintf(format, args...)})
	})
	return out
}
