package model

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/olmcat/olmcat/fbc"
)

// Options tune validation.
type Options struct {
	// Strict turns every warning into an error: the graph findings that opm accepts (cycles
	// through skips, skipped bundles on the replaces chain, bundles with no upgrade path to the
	// head, custom schema names that opm serve refuses) then fail validation too.
	Strict bool
	// OLM is the generations of OLM asked about (validate --olm): findings that hold only for a
	// generation not asked are left out. The zero value is both.
	OLM Generations
	// Review, when set, runs once the rules of this package have, on the whole catalog (the
	// streaming Validator hands it the blobs it kept: bundles with only their olm.package and
	// dependency properties), and returns issues with its own findings added and its amendments
	// made. fbc/resolve's ReviewV1 speaks for OLM v1 this way, which this package cannot import.
	// ValidateCatalog and the Validator run it; Validate, which has a model and no catalog, does not.
	Review func(c *fbc.Catalog, issues Issues, olm Generations) Issues
}

// ValidateCatalog builds the model of a serialized catalog and validates it (see Validate),
// returning every problem found, never only the first.
func ValidateCatalog(c *fbc.Catalog, opts Options) Issues {
	var issues Issues
	var scratch []byte
	for i := range c.Bundles {
		issues = append(issues, checkBundleBlob(&c.Bundles[i], &scratch)...)
	}
	m, built := FromCatalog(c)
	issues = append(issues, built...)
	issues = append(issues, validateDeprecationBlobs(c)...)
	issues = append(issues, validateModel(m, false)...)
	if opts.Review != nil {
		issues = opts.Review(c, issues, opts.OLM)
	}
	return finish(issues, opts)
}

// Validate checks a model against every rule opm applies when it loads a catalog (these are
// errors), plus graph problems opm does not see (warnings, errors with Options.Strict). Issues
// are sorted by file and line.
func Validate(m *Model, opts Options) Issues {
	return finish(validateModel(m, true), opts)
}

// validateModel validates the packages on every processor (they share nothing), and returns the
// issues in package order: validate of s5k spent a third of its time here, on one core.
func validateModel(m *Model, withBundleBlobs bool) Issues {
	pkgs := m.SortedPackages()
	perPackage := make([]Issues, len(pkgs))
	workers := min(runtime.GOMAXPROCS(0), len(pkgs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(pkgs) {
					return
				}
				perPackage[i] = validatePackage(pkgs[i], withBundleBlobs)
			}
		}()
	}
	wg.Wait()
	var issues Issues
	for _, pi := range perPackage {
		issues = append(issues, pi...)
	}
	issues = append(issues, validateOthers(m.Others)...)
	return issues
}

func finish(issues Issues, opts Options) Issues {
	issues = issues.KeepFor(opts.OLM)
	if opts.Strict {
		for _, i := range issues {
			if i.Severity == Warning {
				i.Severity = Error
			}
		}
	}
	SortIssues(issues)
	return issues
}

// SortIssues orders issues by file, line, then package, channel, bundle, rule and message, so
// that reports are stable from run to run. Issues without a file come last.
func SortIssues(issues Issues) {
	sort.SliceStable(issues, func(a, b int) bool {
		x, y := issues[a], issues[b]
		if (x.File == "") != (y.File == "") {
			return x.File != ""
		}
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		if x.Severity != y.Severity {
			return severityRank(x.Severity) > severityRank(y.Severity)
		}
		for _, pair := range [][2]string{
			{x.Package, y.Package}, {x.Channel, y.Channel}, {x.Bundle, y.Bundle},
			{x.Rule, y.Rule}, {x.Message, y.Message},
		} {
			if pair[0] != pair[1] {
				return pair[0] < pair[1]
			}
		}
		return false
	})
}

// Warnings returns only the issues of severity Warning.
func (is Issues) Warnings() Issues {
	var out Issues
	for _, i := range is {
		if i.Severity == Warning {
			out = append(out, i)
		}
	}
	return out
}

// Report is the stable machine-readable result of a validation (olmcat validate -o json):
// Passed is true when there is no error; Issues is never null.
type Report struct {
	Passed   bool   `json:"passed"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	Info     int    `json:"info,omitempty"`
	Issues   Issues `json:"issues"`
}

// NewReport summarizes issues.
func NewReport(issues Issues) Report {
	r := Report{Issues: issues}
	if r.Issues == nil {
		r.Issues = Issues{}
	}
	for _, i := range issues {
		switch i.Severity {
		case Error:
			r.Errors++
		case Warning:
			r.Warnings++
		case Info:
			r.Info++
		}
	}
	r.Passed = r.Errors == 0
	return r
}

// severityRank orders severities for sorting: error, warning, info.
func severityRank(s Severity) int {
	switch s {
	case Error:
		return 2
	case Warning:
		return 1
	}
	return 0
}
