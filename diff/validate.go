package diff

import (
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// validateSides validates both sides package by package (no validation rule looks across packages).
// A package the comparison found unchanged has the new side's problems of the old side, unless the
// old side has errors there, whose places in the new side are worth finding: that saves validating
// most of a catalog twice. The old side is validated while the new side's changed packages are.
func validateSides(oldIdx, newIdx *index, unchanged map[string]bool) {
	oldParts, newParts := splitByPackage(oldIdx.catalog), splitByPackage(newIdx.catalog)
	oldIssues := map[string]model.Issues{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for name, part := range oldParts {
			oldIssues[name] = model.ValidateCatalog(part, model.Options{})
		}
	}()
	newIssues := map[string]model.Issues{}
	var reuse []string
	for name, part := range newParts {
		if unchanged[name] && oldParts[name] != nil {
			reuse = append(reuse, name)
			continue
		}
		newIssues[name] = model.ValidateCatalog(part, model.Options{})
	}
	wg.Wait()
	for _, name := range reuse {
		if len(oldIssues[name].Errors()) > 0 {
			newIssues[name] = model.ValidateCatalog(newParts[name], model.Options{})
		} else {
			newIssues[name] = oldIssues[name]
		}
	}
	for _, name := range sortedNames(oldIssues) {
		oldIdx.problems = append(oldIdx.problems, oldIssues[name]...)
	}
	for _, name := range sortedNames(newIssues) {
		newIdx.problems = append(newIdx.problems, newIssues[name]...)
	}
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
