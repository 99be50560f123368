package diff

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/v1install"
)

// validateSides validates both sides package by package (no validation rule looks across packages).
// A package the comparison found unchanged has the new side's problems of the old side, unless the
// old side has errors there, whose places in the new side are worth finding, or the two sides do
// not hold the same number of blobs and entries (the comparison reads the first blob of a name, so
// a duplicate added on the new side looks like no change): that saves validating most of a catalog
// twice. Packages are validated on all CPUs at once.
func validateSides(oldIdx, newIdx *index, unchanged map[string]bool, gens model.Generations) {
	oldParts, newParts := splitByPackage(oldIdx.catalog), splitByPackage(newIdx.catalog)
	var jobs []validation
	for name, part := range oldParts {
		jobs = append(jobs, validation{old: true, name: name, part: part})
	}
	var reuse []string
	for name, part := range newParts {
		if unchanged[name] && oldParts[name] != nil && sameShape(oldParts[name], part) {
			reuse = append(reuse, name)
			continue
		}
		jobs = append(jobs, validation{name: name, part: part})
	}
	validateAll(jobs, gens)
	oldIssues, newIssues := map[string]model.Issues{}, map[string]model.Issues{}
	for _, j := range jobs {
		if j.old {
			oldIssues[j.name] = j.issues
		} else {
			newIssues[j.name] = j.issues
		}
	}
	var again []validation
	for _, name := range reuse {
		if len(oldIssues[name].Errors()) > 0 {
			again = append(again, validation{name: name, part: newParts[name]})
		} else {
			newIssues[name] = oldIssues[name]
		}
	}
	validateAll(again, gens)
	for _, j := range again {
		newIssues[j.name] = j.issues
	}
	for _, name := range sortedNames(oldIssues) {
		oldIdx.problems = append(oldIdx.problems, oldIssues[name]...)
	}
	for _, name := range sortedNames(newIssues) {
		newIdx.problems = append(newIdx.problems, newIssues[name]...)
	}
	oldIdx.skipUnchecked()
	newIdx.skipUnchecked()
}

// skipUnchecked leaves out, as olmcat validate does, the problems that look across blobs of the
// packages whose files did not load completely (the blobs missing would only cause misleading
// ones), each such package getting a package-not-checked warning instead.
func (idx *index) skipUnchecked() {
	var load model.Issues
	for _, i := range idx.side.Problems {
		if strings.HasPrefix(i.Rule, "load-") { // the rules of model.LoadIssues
			load = append(load, i)
		}
	}
	if len(load) > 0 {
		idx.problems = model.SkipUnchecked(idx.problems, idx.catalog, load)
	}
}

// validation is one package of one side to validate, and, once validated, its problems.
type validation struct {
	old    bool
	name   string
	part   *fbc.Catalog
	issues model.Issues
}

// validateAll validates the jobs on GOMAXPROCS goroutines, each job's issues in place, with the
// rules olmcat validate runs for the generations asked (OLM v1's review and install check too, so
// that a change making a bundle uninstallable for OLM v1 is a problem the diff reports).
func validateAll(jobs []validation, gens model.Generations) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(jobs); i = int(next.Add(1)) - 1 {
				jobs[i].issues = model.ValidateCatalog(jobs[i].part, validateOptions(gens))
			}
		}()
	}
	wg.Wait()
}

// sameShape says whether two parts of a catalog hold as many blobs of each schema, channel entries
// of each channel and deprecation entries. Of two parts the comparison found equal and the first
// free of duplicates (a validation error), it tells whether the second has duplicates.
func sameShape(a, b *fbc.Catalog) bool {
	if len(a.Packages) != len(b.Packages) || len(a.Channels) != len(b.Channels) || len(a.Bundles) != len(b.Bundles) ||
		len(a.Deprecations) != len(b.Deprecations) || len(a.Others) != len(b.Others) {
		return false
	}
	entries := func(c *fbc.Catalog) map[string]int {
		out := map[string]int{}
		for _, ch := range c.Channels {
			out[ch.Name] += len(ch.Entries)
		}
		for _, d := range c.Deprecations {
			out["\x00deprecations"] += len(d.Entries)
		}
		return out
	}
	ea, eb := entries(a), entries(b)
	if len(ea) != len(eb) {
		return false
	}
	for k, n := range ea {
		if eb[k] != n {
			return false
		}
	}
	return true
}

func splitByPackage(c *fbc.Catalog) map[string]*fbc.Catalog {
	out := map[string]*fbc.Catalog{}
	for _, part := range fbc.SplitByPackage(c) {
		out[part.Package] = part.Catalog
	}
	return out
}

func sortedNames(m map[string]model.Issues) []string {
	return unionKeys(m, map[string]model.Issues(nil))
}

// validateOptions are the options of one package's validation for the generations asked: opm's
// rules and olmcat's, and with OLM v1 asked its install check (v1-not-installable), so that a
// change making a bundle one OLM v1 refuses to install is a problem the diff reports. OLM v1's
// review (resolve.ReviewV1: what OLM v1 picks, beside each OLM v0 graph warning) is left to the
// diff's own OLM v1 findings (v1-install-*, v1-upgrade-*), which compare the picks of both sides
// instead of restating them on each.
func validateOptions(gens model.Generations) model.Options {
	opts := model.Options{OLM: gens}
	if gens.Includes(model.OLMv1) {
		opts.BundleChecks = []model.BundleChecker{v1install.NewInlineChecker()} // validateAll is parallel already
	}
	return opts
}
