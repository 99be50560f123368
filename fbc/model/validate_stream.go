package model

import (
	"sort"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// Validator validates a catalog as its blobs stream by, so that a catalog of any size is checked
// in one pass holding one blob at a time: the rules about a single bundle run as soon as it
// arrives, then only what the package-level rules need is kept (names, channels, the olm.package
// property, locations). Use Add as the callback of fbc.Walk, then Finish.
type Validator struct {
	opts     Options
	kept     fbc.Catalog
	provided map[string]struct{} // the olm.gvk values of every bundle as written (each once), for unmetRequirements
	issues   Issues
	scratch  []byte
}

// NewValidator starts a streaming validation.
func NewValidator(opts Options) *Validator { return &Validator{opts: opts} }

// Add takes one blob. A blob that does not decode is returned as the loader's *fbc.LoadError (so
// fbc.Walk records it and goes on); validation problems are kept for Finish. Nothing kept shares
// b.Data's memory: the caller may reuse it once Add returns.
func (v *Validator) Add(b fbc.Blob) error {
	if b.InvalidUTF8Line > 0 {
		v.issues = append(v.issues, InvalidUTF8Issue(b))
	}
	var one fbc.Catalog
	if b.Schema == fbc.SchemaBundle {
		bundle := fbc.Bundle{Schema: b.Schema, Loc: b.Loc}
		if decodeBundleFast(b.Data, &bundle) {
			one.Bundles = append(one.Bundles, bundle)
			v.AddCatalog(&one)
			return nil
		}
	}
	if err := one.Add(b); err != nil {
		return err
	}
	v.AdoptCatalog(&one)
	return nil
}

// AddCatalog takes the blobs of an in-memory catalog (for example one package of a converted
// index.db). The catalog is not kept: it may be reused or dropped once AddCatalog returns.
func (v *Validator) AddCatalog(c *fbc.Catalog) { v.add(c, false) }

// AdoptCatalog is AddCatalog for a catalog its caller will no longer change: the validator keeps
// references to parts of it (channel entries) instead of copying them. Reading c afterwards is fine.
func (v *Validator) AdoptCatalog(c *fbc.Catalog) { v.add(c, true) }

func (v *Validator) add(c *fbc.Catalog, adopt bool) {
	for i := range c.Bundles {
		bundle := &c.Bundles[i]
		v.issues = append(v.issues, checkBundleBlob(bundle, &v.scratch)...)
		v.noteProvided(bundle.Properties)
		v.kept.Bundles = append(v.kept.Bundles, fbc.Bundle{
			Name: bundle.Name, Package: bundle.Package, Image: bundle.Image, Loc: bundle.Loc,
			Properties: packageProperties(bundle.Properties),
		})
	}
	for _, p := range c.Packages {
		p.Icon, p.Description = nil, "" // no rule reads them; icons can be large
		v.kept.Packages = append(v.kept.Packages, p)
	}
	for _, ch := range c.Channels {
		if !adopt {
			ch.Entries = append([]fbc.ChannelEntry(nil), ch.Entries...)
		}
		ch.Extra = nil
		v.kept.Channels = append(v.kept.Channels, ch)
	}
	v.kept.Deprecations = append(v.kept.Deprecations, c.Deprecations...)
	for _, o := range c.Others {
		o.Blob = nil // only the schema name and location are checked
		v.kept.Others = append(v.kept.Others, o)
	}
}

// Finish applies the package-level rules to everything added and returns all issues, sorted.
// loadErr is what the walk returned: its problems (*fbc.LoadErrors) become issues too, and the
// rules that look across blobs (graph, references, duplicates) are skipped for the packages whose
// files did not load completely, since the missing blobs would only cause misleading findings.
// An error that is not a load problem is returned as is.
func (v *Validator) Finish(loadErr error) (Issues, error) {
	loadIssues, err := LoadIssues(loadErr)
	if err != nil {
		return nil, err
	}
	m, built := FromCatalog(&v.kept)
	issues := append(v.issues, built...)
	issues = append(issues, validateDeprecationBlobs(&v.kept)...)
	issues = append(issues, validateModel(m, false)...)
	if len(loadIssues) == 0 {
		// a provider may be among the blobs that did not load
		issues = append(issues, unmetRequirements(m, v.providedGVKs())...)
	}
	if v.opts.Review != nil {
		issues = v.opts.Review(&v.kept, issues, v.opts.OLM)
	}
	issues = SkipUnchecked(issues, &v.kept, loadIssues)
	return finish(append(loadIssues, issues...), v.opts), nil
}

// SkipUnchecked does to issues what Finish does: the rules that look across blobs are dropped for
// the packages of c with blobs in a file that did not load completely (loadIssues, as LoadIssues
// gives them), and each such package gets one package-not-checked warning instead. olmcat diff
// applies it to a catalog loaded as far as it goes and validated with ValidateCatalog, so that
// both commands report the same problems.
func SkipUnchecked(issues Issues, c *fbc.Catalog, loadIssues Issues) Issues {
	if incomplete := incompletePackages(c, loadIssues); len(incomplete) > 0 {
		return dropCrossBlobIssues(issues, incomplete)
	}
	return issues
}

// incompletePackages maps each package with blobs of c in a file that had load problems to the
// first problem of that file.
func incompletePackages(c *fbc.Catalog, loadIssues Issues) map[string]fbc.Location {
	badFiles := map[string]fbc.Location{} // file -> its first load problem
	out := map[string]fbc.Location{}
	for _, i := range loadIssues {
		loc := fbc.Location{File: i.File, Line: i.Line}
		if _, seen := badFiles[i.File]; i.File != "" && !seen {
			badFiles[i.File] = loc
		}
		if i.Package != "" {
			out[i.Package] = loc
		}
	}
	note := func(pkg string, loc fbc.Location) {
		if first, bad := badFiles[loc.File]; bad {
			out[pkg] = first
		}
	}
	for _, p := range c.Packages {
		note(p.Name, p.Loc)
	}
	for _, ch := range c.Channels {
		note(ch.Package, ch.Loc)
	}
	for _, b := range c.Bundles {
		note(b.Package, b.Loc)
	}
	for _, d := range c.Deprecations {
		note(d.Package, d.Loc)
	}
	return out
}

// crossBlobRules are the rules whose findings depend on other blobs being present.
var crossBlobRules = map[string]bool{
	"unknown-package": true, "duplicate-package": true, "duplicate-bundle": true, "duplicate-channel": true,
	"entry-without-bundle": true, "deprecation-unknown-package": true, "deprecation-unknown-channel": true,
	"deprecation-unknown-bundle": true, "deprecation-duplicate": true,
	"default-channel-unset": true, "default-channel-missing": true, "package-without-channels": true,
	"bundle-in-no-channel": true, "duplicate-version": true,
	"no-head": true, "multiple-heads": true, "replaces-cycle": true, "stranded-bundles": true,
	"upgrade-cycle": true, "skipped-on-replaces-chain": true, "unreachable-from-head": true,
	"downgrade-offered": true,
	// OLM v1's findings (fbc/resolve ReviewV1) read the whole package too
	"v1-installs-prerelease": true, "v1-left-behind": true, "v1-duplicate-version": true,
}

func dropCrossBlobIssues(issues Issues, incomplete map[string]fbc.Location) Issues {
	kept := issues[:0]
	for _, i := range issues {
		if _, skip := incomplete[i.Package]; skip && crossBlobRules[i.Rule] {
			continue
		}
		kept = append(kept, i)
	}
	pkgs := make([]string, 0, len(incomplete))
	for p := range incomplete {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		kept = append(kept, newIssue(Warning, "package-not-checked", incomplete[p], p, "", "",
			"fix the load errors of this file, then validate again",
			"the package did not load completely: its channel, graph and reference checks were skipped"))
	}
	return kept
}

// packageProperties copies the properties the package-level rules read of a bundle: olm.package,
// and what it requires of other bundles (olm.gvk.required, olm.package.required, olm.constraint:
// OLM v1 refuses a bundle with any of them, Options.Review). What bundles
// provide (olm.gvk) is kept once per value, in Validator.provided.
func packageProperties(props []fbc.Property) []fbc.Property {
	var out []fbc.Property
	for _, p := range props {
		switch p.Type {
		case property.TypePackage, property.TypeGVKRequired, property.TypePackageRequired, property.TypeConstraint:
			out = append(out, fbc.Property{Type: p.Type, Value: append([]byte(nil), p.Value...)})
		}
	}
	return out
}

// InvalidUTF8Issue warns about bytes that are not UTF-8 in a blob (b.InvalidUTF8Line > 0), at their
// line; olmcat validate and both sides of olmcat diff report it. Like opm
// (encoding/json), the loader reads them as U+FFFD; opm says nothing, and the catalog it serves
// then holds replacement characters where the file held other bytes.
func InvalidUTF8Issue(b fbc.Blob) *Issue {
	bundle := ""
	if b.Schema == fbc.SchemaBundle {
		bundle = b.Name
	}
	return newIssue(Warning, "invalid-utf8", fbc.Location{File: b.Loc.File, Line: b.InvalidUTF8Line}, b.PackageName(), "", bundle,
		"save the file as UTF-8",
		"the %s blob holds bytes that are not UTF-8; they are read as U+FFFD, as opm reads them, so the catalog served holds replacement characters there",
		b.Schema)
}

// noteProvided keeps the olm.gvk values among props, each distinct text once: bundles of a package
// mostly repeat their APIs, and decoding every one (15,000 in a 5,000-bundle catalog) cost validate
// a tenth of its time. Finish decodes each text once (providedGVKs).
func (v *Validator) noteProvided(props []fbc.Property) {
	for _, p := range props {
		if p.Type != property.TypeGVK {
			continue
		}
		if _, ok := v.provided[string(p.Value)]; !ok {
			if v.provided == nil {
				v.provided = map[string]struct{}{}
			}
			v.provided[string(p.Value)] = struct{}{}
		}
	}
}

// providedGVKs decodes the olm.gvk values noteProvided kept, as addProvidedGVKs decodes them.
func (v *Validator) providedGVKs() map[property.GVK]bool {
	var set map[property.GVK]bool
	for raw := range v.provided {
		set = addProvidedGVKs(set, []fbc.Property{{Type: property.TypeGVK, Value: []byte(raw)}})
	}
	return set
}
