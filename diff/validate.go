package diff

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// validateSides validates both sides package by package (no validation rule looks across packages).
// A package the comparison found unchanged has the new side's problems of the old side, unless the
// old side has errors there, whose places in the new side are worth finding: that saves validating
// most of a catalog twice. Packages are validated on all CPUs at once.
func validateSides(oldIdx, newIdx *index, unchanged map[string]bool) {
	oldParts, newParts := splitByPackage(oldIdx.catalog), splitByPackage(newIdx.catalog)
	var jobs []validation
	for name, part := range oldParts {
		jobs = append(jobs, validation{old: true, name: name, part: part})
	}
	var reuse []string
	for name, part := range newParts {
		if unchanged[name] && oldParts[name] != nil {
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
