package diff

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// validateSides validates both sides package by package (no validation rule looks across packages).
// A package the comparison found unchanged has the new side's problems of the old side, unless the
// old side has errors there, whose places in the new side are worth finding, or the two sides do
// not hold the same number of blobs and entries (the comparison reads the first blob of a name, so
// a duplicate added on the new side looks like no change): that saves validating most of a catalog
// twice. Packages are validated on all CPUs at once.
func validateSides(oldIdx, newIdx *index, unchanged map[string]bool) {
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
	validateAll(jobs)
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
	validateAll(again)
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

// validateAll validates the jobs on GOMAXPROCS goroutines, each job's issues in place.
func validateAll(jobs []validation) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(jobs); i = int(next.Add(1)) - 1 {
				jobs[i].issues = model.ValidateCatalog(jobs[i].part, model.Options{})
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
