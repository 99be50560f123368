// Package diff compares two revisions of a catalog: what changed in its text (packages, channels,
// entries, bundles, properties, deprecations, other blobs) and what the change does to installed users
// (which bundles can still upgrade to their channel's head, by how many steps). Every change is a
// typed, located Finding with a severity and the rule that decided it; a Report holds them in a stable
// order and marshals to the versioned JSON schema documented in SCHEMA.md.
package diff

import (
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"slices"
)

// SchemaVersion names the JSON form of a Report. It changes when a field changes meaning or goes away.
const SchemaVersion = "olmcat.diff/v1"

// Side is one of the two catalogs being compared: whatever of it could be loaded, and the problems met
// while loading it. A side that failed to load entirely has an empty Catalog and its problems.
type Side struct {
	Source  string       // what the user named: a path, a git revision and path, an image reference
	Format  string       // "fbc", "sqlite", "image", ...
	Catalog *fbc.Catalog // nil is read as an empty catalog
	// Problems are load errors and any other problems found outside the model (e.g. conversion).
	Problems model.Issues
}

// Report is the result of comparing two sides.
type Report struct {
	SchemaVersion string        `json:"schemaVersion"`
	Old           SideSummary   `json:"old"`
	New           SideSummary   `json:"new"`
	Summary       Counts        `json:"summary"`
	Packages      []PackageStat `json:"packages"`
	Findings      []Finding     `json:"findings"`
	Upgrades      []Upgrade     `json:"upgrades"`
	// OLM is what the report speaks for: v0, v1 or both (--olm).
	OLM string `json:"olm"`
	// V1Edges are the upgrades OLM v1 makes in the changed packages' channels that OLM v0 does not
	// (empty when the report speaks for OLM v0 only).
	V1Edges []V1Edge `json:"v1Edges"`
}

// SideSummary describes one side of the comparison.
type SideSummary struct {
	Source   string `json:"source"`
	Format   string `json:"format"`
	Packages int    `json:"packages"`
	Channels int    `json:"channels"`
	Bundles  int    `json:"bundles"`
	Problems int    `json:"problems"`
}

// Counts are findings by severity.
type Counts struct {
	Breaking int `json:"breaking"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
}

func (c *Counts) add(s Severity) {
	switch s {
	case Breaking:
		c.Breaking++
	case Warning:
		c.Warning++
	case Info:
		c.Info++
	}
}

// Total is the number of findings counted.
func (c Counts) Total() int { return c.Breaking + c.Warning + c.Info }

// AtLeast counts the findings of the given severity or worse.
func (c Counts) AtLeast(s Severity) int {
	switch s {
	case Breaking:
		return c.Breaking
	case Warning:
		return c.Breaking + c.Warning
	default:
		return c.Total()
	}
}

// Compare compares two sides for both generations of OLM. It never fails: what could not be loaded
// or placed in a model is compared as far as it goes, and the problems of both sides are findings of
// category validation.
func Compare(oldSide, newSide *Side) *Report {
	return CompareWith(oldSide, newSide, Options{})
}

// CompareWith compares two sides for the generations of OLM opts names. Upgrade findings of only
// the other generation are left out; OLM v1's answers (fbc/resolve) are asked only in the packages
// whose text changed.
func CompareWith(oldSide, newSide *Side, opts Options) *Report {
	gen := gen(opts.OLM)
	oldIdx := newIndex(oldSide)
	newIdx := newIndex(newSide)

	var findings []Finding
	var upgrades []Upgrade
	var v1Edges []V1Edge
	unchanged := map[string]bool{}
	pkgs := unionKeys(oldIdx.packages, newIdx.packages)
	pkgFindings := map[string][]Finding{}
	changedBoth := map[string]bool{} // changed packages both sides have: OLM v1 is asked about them
	for _, name := range pkgs {
		op, np := oldIdx.packages[name], newIdx.packages[name]
		pf := comparePackage(name, op, np)
		pkgFindings[name] = pf
		unchanged[name] = len(pf) == 0
		if gen.v1() && len(pf) > 0 && op != nil && np != nil && op.model != nil && np.model != nil {
			changedBoth[name] = true
		}
	}
	var oldSubs, newSubs map[string]*fbc.Catalog
	if len(changedBoth) > 0 {
		oldSubs, newSubs = v1Catalogs(oldIdx.catalog, changedBoth), v1Catalogs(newIdx.catalog, changedBoth)
	}
	for _, name := range pkgs {
		op, np := oldIdx.packages[name], newIdx.packages[name]
		var v1 *v1Package
		if changedBoth[name] {
			v1 = newV1Package(name, oldSubs[name], newSubs[name], op, np, pkgFindings[name])
		}
		gf, gu, ge := compareGraphs(name, op, np, v1, gen)
		findings = append(append(findings, pkgFindings[name]...), gf...)
		if gen.v0() {
			findings = append(findings, headRequirementFindings(name, oldIdx, newIdx)...)
		}
		if v1 != nil {
			findings = append(findings, v1.findings(op, np)...)
		}
		upgrades = append(upgrades, gu...)
		v1Edges = append(v1Edges, ge...)
	}
	findings = append(findings, crdUpgradeFindings(oldIdx, newIdx, unchanged)...)
	validateSides(oldIdx, newIdx, unchanged, opts.OLM)
	oldIdx.problems, newIdx.problems = oldIdx.problems.KeepFor(opts.OLM), newIdx.problems.KeepFor(opts.OLM)
	findings = append(findings, compareProblems(oldIdx.problems, newIdx.problems)...)
	findings = keepGenerations(findings, opts.OLM)
	sortFindings(findings)
	_, byPackage := ByPackage(findings)
	stats := make([]PackageStat, 0, len(pkgs))
	for _, name := range pkgs {
		stats = append(stats, packageStat(name, oldIdx.packages[name], newIdx.packages[name], byPackage[name]))
	}
	r := &Report{
		SchemaVersion: SchemaVersion,
		Old:           oldIdx.summary(),
		New:           newIdx.summary(),
		Packages:      stats,
		Findings:      findings,
		Upgrades:      upgrades,
		OLM:           opts.OLM.String(),
		V1Edges:       v1Edges,
	}
	if r.V1Edges == nil {
		r.V1Edges = []V1Edge{}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	if r.Upgrades == nil {
		r.Upgrades = []Upgrade{}
	}
	for _, f := range findings {
		r.Summary.add(f.Severity)
	}
	return r
}

// keepGenerations leaves out the findings that hold only for a generation of OLM not asked (CRD
// upgrade safety on OLM v1's edges with --olm v0, say); findings that do not depend on the
// generation stay.
func keepGenerations(findings []Finding, asked model.Generations) []Finding {
	kept := findings[:0]
	for _, f := range findings {
		if len(f.OLM) == 0 || slices.ContainsFunc(f.OLM, asked.Includes) {
			kept = append(kept, f)
		}
	}
	return kept
}
