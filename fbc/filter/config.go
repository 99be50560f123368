// Package filter selects the part of a catalog a disconnected cluster mirrors, as oc-mirror v2
// does from an ImageSetConfiguration (mirror.operators[]) or a catalog-filter FilterConfiguration:
// packages, channels, version ranges, heads-only by default. It departs from oc-mirror where
// oc-mirror writes catalogs opm rejects or mirrors nothing without a word (see the README,
// "Mirroring a subset"): ranges are OLM's (blang), never leave a channel, and every kept bundle is
// checked to reach its kept channel head with model.UpgradeGraph.
package filter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/blang/semver/v4"
	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/internal/textsafe"
)

// The kinds of configuration files read.
const (
	ISCAPIVersion = "mirror.openshift.io/v2alpha1"
	// ISCV1APIVersion is oc-mirror v1's ImageSetConfiguration: its mirror.operators have the
	// shape of v2alpha1's and are read the same; its storageConfig (where oc-mirror v1 keeps its
	// metadata) is not used.
	ISCV1APIVersion  = "mirror.openshift.io/v1alpha2"
	ISCKind          = "ImageSetConfiguration"
	FilterAPIVersion = "olm.operatorframework.io/filter/mirror/v1alpha1"
	FilterKind       = "FilterConfiguration"
)

// Config is what to keep of a catalog.
type Config struct {
	// Full keeps every bundle of the selected channels; otherwise each channel without a version
	// range keeps only its head (oc-mirror's heads-only default).
	Full bool
	// Packages are the packages to keep; none means every package of the catalog.
	Packages []Package
	// Origin names where the configuration came from, for messages ("" for flags).
	Origin string
	// Notice, when set, is to be said once to the user: how the configuration was read where it
	// is not oc-mirror v2's own (an oc-mirror v1 ImageSetConfiguration).
	Notice string
}

// Package selects one package.
type Package struct {
	Name string
	// DefaultChannel replaces the package's default channel ("" keeps it).
	DefaultChannel string
	// Range applies to every selected channel without a range of its own.
	Range Range
	// Channels are the channels to keep; none means every channel.
	Channels []Channel
	// Bundles, when set, are the bundles to keep (oc-mirror's packages[].bundles): each is kept in
	// every channel that has it, with the bundles its upgrades to the kept head need; the channels
	// without one are left out. Not combined with Channels, a Range or Full.
	Bundles []string
}

// Channel selects one channel of a package.
type Channel struct {
	Name  string
	Range Range
}

// Range is a version range, as OLM orders versions (blang semver: a pre-release such as
// 1.21.0-555 sorts below 1.21.0 and above 1.20.9, and is never left out for being one).
type Range struct {
	// Text is the range as written: "min 1.2.0, max 1.3.0" or a FilterConfiguration versionRange.
	Text  string
	match func(semver.Version) bool
	// pinned is set when minVersion and maxVersion name the same version: one version is asked
	// for, and oc-mirror v1 keeps it alone (see keepPinned).
	pinned bool
}

// IsSet says whether the range restricts anything.
func (r Range) IsSet() bool { return r.match != nil }

// Contains says whether v is in the range.
func (r Range) Contains(v semver.Version) bool { return r.match == nil || r.match(v) }

// String is the range as written.
func (r Range) String() string { return r.Text }

// MinMax builds the range of oc-mirror's minVersion and maxVersion (both inclusive; either may be
// empty). what names the setting for errors ("package foo").
func MinMax(minV, maxV, what string) (Range, error) {
	if minV == "" && maxV == "" {
		return Range{}, nil
	}
	var lo, hi *semver.Version
	var parts []string
	for _, b := range []struct {
		key, text string
		v         **semver.Version
	}{{"minVersion", minV, &lo}, {"maxVersion", maxV, &hi}} {
		if b.text == "" {
			continue
		}
		v, err := semver.Parse(strings.TrimPrefix(strings.TrimSpace(b.text), "v"))
		if err != nil {
			return Range{}, fmt.Errorf("%s: %s %s is not a semantic version (e.g. 1.2.3): %s", what, b.key, textsafe.QuoteCut(b.text), textsafe.ErrorAbout(err, b.text))
		}
		*b.v = &v
		parts = append(parts, b.key+" "+b.text)
	}
	if lo != nil && hi != nil && lo.GT(*hi) {
		return Range{}, fmt.Errorf("%s: minVersion %s is above maxVersion %s", what, textsafe.QuoteCut(minV), textsafe.QuoteCut(maxV))
	}
	return Range{Text: strings.Join(parts, ", "), pinned: lo != nil && hi != nil && lo.EQ(*hi), match: func(v semver.Version) bool {
		return (lo == nil || v.GTE(*lo)) && (hi == nil || v.LTE(*hi))
	}}, nil
}

// mastermindsAnd is the comma that joins constraints in a catalog-filter versionRange; blang
// joins them with a space.
var mastermindsAnd = regexp.MustCompile(`\s*,\s*`)

// VersionRange builds the range of a FilterConfiguration versionRange (">=1.2.0 <1.3.0",
// ">=1.2.0, <1.3.0", "1.2.x", "a || b"), read as OLM reads ranges.
func VersionRange(text, what string) (Range, error) {
	if strings.TrimSpace(text) == "" {
		return Range{}, nil
	}
	r, err := semver.ParseRange(mastermindsAnd.ReplaceAllString(strings.TrimSpace(text), " "))
	if err != nil {
		return Range{}, fmt.Errorf("%s: versionRange %s is not a version range (e.g. \">=1.2.0 <1.3.0\"): %s", what, textsafe.QuoteCut(text), textsafe.ErrorAbout(err, text))
	}
	return Range{Text: "versionRange " + text, match: r}, nil
}

// ISC is the part of an oc-mirror v2alpha1 ImageSetConfiguration the filter reads. The other
// sections are accepted as they are (they concern releases, Helm charts and other images); an
// unknown key anywhere is an error, so that a misspelled one cannot mirror nothing silently.
type isc struct {
	APIVersion  string          `json:"apiVersion"`
	Kind        string          `json:"kind"`
	ArchiveSize json.RawMessage `json:"archiveSize,omitempty"`
	// StorageConfig is oc-mirror v1's (v1alpha2) metadata store: accepted there, not used.
	StorageConfig json.RawMessage `json:"storageConfig,omitempty"`
	Mirror        struct {
		Platform         json.RawMessage `json:"platform,omitempty"`
		Operators        []iscOperator   `json:"operators,omitempty"`
		AdditionalImages json.RawMessage `json:"additionalImages,omitempty"`
		Helm             json.RawMessage `json:"helm,omitempty"`
		BlockedImages    json.RawMessage `json:"blockedImages,omitempty"`
		Samples          json.RawMessage `json:"samples,omitempty"`
	} `json:"mirror"`
}

// ISCOperator is one mirror.operators[] entry.
type iscOperator struct {
	Catalog                     string          `json:"catalog"`
	TargetCatalog               string          `json:"targetCatalog,omitempty"`
	TargetTag                   string          `json:"targetTag,omitempty"`
	Full                        bool            `json:"full,omitempty"`
	SkipDependencies            bool            `json:"skipDependencies,omitempty"`
	TargetCatalogSourceTemplate string          `json:"targetCatalogSourceTemplate,omitempty"`
	Platforms                   json.RawMessage `json:"platforms,omitempty"`
	// TargetName and OriginalRef are oc-mirror v1's (v1alpha2), about the mirrored catalog's
	// name: accepted there, not used.
	TargetName  string `json:"targetName,omitempty"`
	OriginalRef string `json:"originalRef,omitempty"`
	Packages    []struct {
		Name           string `json:"name"`
		DefaultChannel string `json:"defaultChannel,omitempty"`
		MinVersion     string `json:"minVersion,omitempty"`
		MaxVersion     string `json:"maxVersion,omitempty"`
		v1Bundles
		Channels []struct {
			Name       string `json:"name"`
			MinVersion string `json:"minVersion,omitempty"`
			MaxVersion string `json:"maxVersion,omitempty"`
			v1Bundles
		} `json:"channels,omitempty"`
		Bundles []struct {
			Name string `json:"name"`
		} `json:"bundles,omitempty"`
	} `json:"packages,omitempty"`
}

type filterConfiguration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Packages   []struct {
		Name           string `json:"name"`
		DefaultChannel string `json:"defaultChannel,omitempty"`
		VersionRange   string `json:"versionRange,omitempty"`
		Channels       []struct {
			Name         string `json:"name"`
			VersionRange string `json:"versionRange,omitempty"`
		} `json:"channels,omitempty"`
	} `json:"packages"`
}

// Selector picks the mirror.operators[] entry of an ImageSetConfiguration.
type Selector struct {
	// Index is the entry's position (from 0); -1 picks by Catalog.
	Index int
	// Catalog is the catalog reference given to the command: the entry whose catalog is the same
	// is taken; when no entry matches and there is only one, that one is.
	Catalog string
}

// ParseConfig reads an ImageSetConfiguration (v2alpha1) or a FilterConfiguration from data; name
// is the file's name for messages.
func ParseConfig(data []byte, name string, sel Selector) (*Config, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s is not a YAML or JSON document: %s", name, cleanYAMLError(err))
	}
	if line := secondDocument(data); line > 0 {
		return nil, fmt.Errorf("%s holds a second YAML document, at line %d, which would not be read (oc-mirror reads the first only): give one configuration per file, removing the --- line and what follows or moving it to a file of its own", name, line)
	}
	switch {
	case head.Kind == ISCKind && (head.APIVersion == ISCAPIVersion || head.APIVersion == ISCV1APIVersion):
		return parseISC(data, name, sel)
	case head.Kind == FilterKind && head.APIVersion == FilterAPIVersion:
		if sel.Index >= 0 {
			return nil, fmt.Errorf("%s is a %s: --operator applies to an %s", name, FilterKind, ISCKind)
		}
		return parseFilterConfiguration(data, name)
	case head.Kind == ISCKind:
		return nil, fmt.Errorf("%s: apiVersion %q of the %s is not read; olmcat reads oc-mirror v2's %s and v1's %s", name, head.APIVersion, ISCKind, ISCAPIVersion, ISCV1APIVersion)
	case head.Kind == FilterKind:
		return nil, fmt.Errorf("%s: apiVersion %q of the %s is not read; olmcat reads %s", name, head.APIVersion, FilterKind, FilterAPIVersion)
	}
	return nil, fmt.Errorf("%s has kind %q (apiVersion %q): give an %s (%s) or a %s (%s)",
		name, head.Kind, head.APIVersion, ISCKind, ISCAPIVersion, FilterKind, FilterAPIVersion)
}

// secondDocument returns the line of the first content after the first YAML document of data,
// or 0 when there is none (empty documents, comments and a last --- are no content). A stream the
// YAML reader cannot read through is left to the configuration's own reading.
func secondDocument(data []byte) int {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	var first yamlv3.Node
	if err := dec.Decode(&first); err != nil {
		return 0
	}
	for {
		var doc yamlv3.Node
		if err := dec.Decode(&doc); err != nil {
			return 0
		}
		for _, n := range doc.Content {
			if n.Kind != yamlv3.ScalarNode || n.Tag != "!!null" {
				return n.Line
			}
		}
	}
}

func parseISC(data []byte, name string, sel Selector) (*Config, error) {
	var doc isc
	if err := yaml.UnmarshalStrict(data, &doc); err != nil {
		return nil, strictError(data, name, err)
	}
	notice, err := checkISCVersionKeys(&doc, data, name)
	if err != nil {
		return nil, err
	}
	ops := doc.Mirror.Operators
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s has no mirror.operators entry: add one naming the catalog and its packages", name)
	}
	var op *iscOperator
	switch {
	case sel.Index >= len(ops):
		return nil, fmt.Errorf("%s: --operator %d: mirror.operators has %d entries (0 to %d)", name, sel.Index, len(ops), len(ops)-1)
	case sel.Index >= 0:
		op = &ops[sel.Index]
	default:
		for i := range ops {
			if sameCatalog(ops[i].Catalog, sel.Catalog) {
				op = &ops[i]
				break
			}
		}
		if op == nil && len(ops) == 1 {
			op = &ops[0]
		}
		if op == nil {
			var names []string
			for i, o := range ops {
				names = append(names, fmt.Sprintf("%d: %s", i, o.Catalog))
			}
			return nil, fmt.Errorf("%s: no mirror.operators entry has catalog %s: choose one with --operator N (%s)", name, sel.Catalog, strings.Join(names, "; "))
		}
	}
	cfg := &Config{Full: op.Full, Origin: name, Notice: notice}
	at := func(i int) string {
		return fmt.Sprintf("%s: mirror.operators[%d]", name, indexOf(ops, op)) + fmt.Sprintf(".packages[%d]", i)
	}
	for i, p := range op.Packages {
		if p.Name == "" {
			return nil, fmt.Errorf("%s has no name: give the package's name", at(i))
		}
		pkg := Package{Name: p.Name, DefaultChannel: p.DefaultChannel}
		var err error
		if pkg.Range, err = MinMax(p.MinVersion, p.MaxVersion, fmt.Sprintf("%s (package %s)", at(i), p.Name)); err != nil {
			return nil, err
		}
		for j, c := range p.Channels {
			what := fmt.Sprintf("%s.channels[%d] (package %s)", at(i), j, p.Name)
			if c.Name == "" {
				return nil, fmt.Errorf("%s has no name: give the channel's name", what)
			}
			ch := Channel{Name: c.Name}
			if ch.Range, err = MinMax(c.MinVersion, c.MaxVersion, what+" channel "+c.Name); err != nil {
				return nil, err
			}
			pkg.Channels = append(pkg.Channels, ch)
		}
		for j, b := range p.Bundles {
			if b.Name == "" {
				return nil, fmt.Errorf("%s.bundles[%d] (package %s) has no name: give the bundle's name as the catalog has it (e.g. %s.v1.2.3)", at(i), j, p.Name, p.Name)
			}
			pkg.Bundles = append(pkg.Bundles, b.Name)
		}
		cfg.Packages = append(cfg.Packages, pkg)
	}
	return cfg, cfg.Check()
}

// sameCatalog says whether an ImageSetConfiguration's catalog names the catalog reference given:
// oc-mirror writes docker:// before registry references and oci:// before local OCI layouts,
// where olmcat reads a bare reference and oci-layout:.
func sameCatalog(isc, ref string) bool {
	norm := func(s string) string {
		s = strings.TrimPrefix(strings.TrimSpace(s), "docker://")
		if rest, ok := strings.CutPrefix(s, "oci://"); ok {
			s = "oci-layout:" + rest
		}
		return strings.TrimSuffix(s, "/")
	}
	return norm(isc) == norm(ref)
}

func indexOf(ops []iscOperator, op *iscOperator) int {
	for i := range ops {
		if &ops[i] == op {
			return i
		}
	}
	return -1
}

func parseFilterConfiguration(data []byte, name string) (*Config, error) {
	var doc filterConfiguration
	if err := yaml.UnmarshalStrict(data, &doc); err != nil {
		return nil, strictError(data, name, err)
	}
	cfg := &Config{Origin: name}
	for i, p := range doc.Packages {
		at := fmt.Sprintf("%s: packages[%d]", name, i)
		if p.Name == "" {
			return nil, fmt.Errorf("%s has no name: give the package's name", at)
		}
		pkg := Package{Name: p.Name, DefaultChannel: p.DefaultChannel}
		var err error
		if pkg.Range, err = VersionRange(p.VersionRange, at+" (package "+p.Name+")"); err != nil {
			return nil, err
		}
		for j, c := range p.Channels {
			what := fmt.Sprintf("%s.channels[%d] (package %s)", at, j, p.Name)
			if c.Name == "" {
				return nil, fmt.Errorf("%s has no name: give the channel's name", what)
			}
			ch := Channel{Name: c.Name}
			if ch.Range, err = VersionRange(c.VersionRange, what+" channel "+c.Name); err != nil {
				return nil, err
			}
			pkg.Channels = append(pkg.Channels, ch)
		}
		cfg.Packages = append(cfg.Packages, pkg)
	}
	return cfg, cfg.Check()
}

// entries names both places of a name listed twice in a configuration file, by the positions (from
// 1) of the two entries in the list: " (packages entries 1 and 3)"; nothing for flags.
func (c *Config) entries(list string, first, second int) string {
	if c.Origin == "" {
		return ""
	}
	return fmt.Sprintf(" (%s entries %d and %d)", list, first+1, second+1)
}

// Check refuses what oc-mirror refuses in a configuration: a package named twice, a channel
// named twice, a package range together with a channel range, full together with a range, bundles
// together with channels, a range or full; and a bundle named twice.
func (c *Config) Check() error {
	where := ""
	if c.Origin != "" {
		where = c.Origin + ": "
	}
	seen := map[string]int{}
	for i, p := range c.Packages {
		if first, dup := seen[p.Name]; dup {
			return fmt.Errorf("%spackage %s is listed twice%s: list it once, with all its channels", where, p.Name, c.entries("packages", first, i))
		}
		seen[p.Name] = i
		if c.Full && p.Range.IsSet() {
			return fmt.Errorf("%spackage %s: full: true cannot be combined with a version range (%s): remove one", where, p.Name, p.Range)
		}
		if len(p.Bundles) > 0 {
			// oc-mirror refuses these combinations too: a bundle is named, not chosen by range.
			switch {
			case len(p.Channels) > 0:
				return fmt.Errorf("%spackage %s selects bundles and channels: give bundles (each is kept in its channels) or channels, not both", where, p.Name)
			case p.Range.IsSet():
				return fmt.Errorf("%spackage %s selects bundles and a version range (%s): give bundles or a range, not both", where, p.Name, p.Range)
			case c.Full:
				return fmt.Errorf("%spackage %s selects bundles, and full: true keeps every bundle: remove one", where, p.Name)
			}
			named := map[string]int{}
			for j, b := range p.Bundles {
				if first, dup := named[b]; dup {
					return fmt.Errorf("%spackage %s lists bundle %s twice%s: list it once", where, p.Name, b, c.entries("bundles", first, j))
				}
				named[b] = j
			}
		}
		chans := map[string]int{}
		for j, ch := range p.Channels {
			if first, dup := chans[ch.Name]; dup {
				return fmt.Errorf("%spackage %s lists channel %s twice%s: list it once", where, p.Name, ch.Name, c.entries("channels", first, j))
			}
			chans[ch.Name] = j
			if c.Full && ch.Range.IsSet() {
				return fmt.Errorf("%spackage %s channel %s: full: true cannot be combined with a version range (%s): remove one", where, p.Name, ch.Name, ch.Range)
			}
			if p.Range.IsSet() && ch.Range.IsSet() {
				return fmt.Errorf("%spackage %s has a version range (%s) and so has its channel %s (%s): set one of them", where, p.Name, p.Range, ch.Name, ch.Range)
			}
		}
	}
	return nil
}

// unknownField is how encoding/json names a key no field takes.
var unknownField = regexp.MustCompile(`unknown field "([^"]*)"`)

// strictError names the key a strict parse refused and, where it can be found, its line.
func strictError(data []byte, name string, err error) error {
	m := unknownField.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %s", name, cleanYAMLError(err))
	}
	key := m[1]
	if i := strings.LastIndex(key, "."); i >= 0 {
		key = key[i+1:]
	}
	loc := name
	for n, line := range bytes.Split(data, []byte("\n")) {
		t := strings.TrimLeft(strings.TrimSpace(string(line)), "- ")
		if strings.HasPrefix(t, key+":") || strings.HasPrefix(t, `"`+key+`":`) {
			loc = fmt.Sprintf("%s:%d", name, n+1)
			break
		}
	}
	path := ""
	if m[1] != key {
		path = " (" + m[1] + ")"
	}
	return fmt.Errorf("%s: unknown key %q%s: check its spelling; an unknown key is refused so that a typo cannot mirror nothing", loc, key, path)
}

// cleanYAMLError drops the decoder's prefixes ("error converting YAML to JSON: yaml: ...").
func cleanYAMLError(err error) string {
	s := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	// "unmarshal errors:\n  line 5: ..." becomes one line.
	s = strings.ReplaceAll(s, ":\n", ": ")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// errNoPackage is wrapped by the error for a package the catalog lacks.
var errNoPackage = errors.New("package not in the catalog")
