package filter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/imageref"
	"github.com/olmcat/olmcat/internal/source"
)

// Report is what a filter kept and left out, package by package, and the images to mirror.
type Report struct {
	Input    string           `json:"input"`
	Config   string           `json:"config,omitempty"`
	Full     bool             `json:"full"`
	Packages []*PackageReport `json:"packages"`
	// Images are every image the filtered catalog references (bundle images and related images),
	// unique and sorted.
	Images []string `json:"images"`

	images map[string]bool
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	if r.Packages == nil {
		r.Packages = []*PackageReport{}
	}
	if r.Images == nil {
		r.Images = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Totals are the kept packages, channels and bundles and the bundles added to keep paths.
func (r *Report) Totals() (packages, channels, bundles, added int) {
	for _, p := range r.Packages {
		packages++
		channels += len(p.Channels)
		bundles += p.KeptBundles
		for _, c := range p.Channels {
			added += len(c.Added)
		}
	}
	return
}

// CutOff lists the kept bundles that do not reach their kept channel head, one sentence each.
func (r *Report) CutOff() []string {
	var out []string
	for _, p := range r.Packages {
		for _, c := range p.Channels {
			for _, x := range c.CutOff {
				how := "cut off by the filter"
				if x.InInput {
					how = "already cut off in the input"
				}
				out = append(out, fmt.Sprintf("package %s channel %s: bundle %s does not reach the head %s (%s: %s)", p.Package, c.Channel, x.Bundle, c.Head, how, x.Why))
			}
		}
	}
	return out
}

// Select filters the catalog of src by cfg, a package at a time (the catalog is never held
// whole), handing fn each kept package's blobs ("" for blobs of no package). Each filtered package
// is validated before fn sees it. A package the configuration names that the catalog lacks is an
// *Error once the walk is done.
func Select(ctx context.Context, src *source.Source, cfg *Config, fn func(pkg string, c *fbc.Catalog) error) (*Report, error) {
	rep := &Report{Input: src.String(), Config: cfg.Origin, Full: cfg.Full, images: map[string]bool{}}
	wanted := map[string]*Package{}
	for i := range cfg.Packages {
		wanted[cfg.Packages[i].Name] = &cfg.Packages[i]
	}
	found := map[string]bool{} // every package of the catalog
	keep := func(pkg string) bool {
		found[pkg] = true
		return len(wanted) == 0 || wanted[pkg] != nil
	}
	// Each package is filtered and validated by one of two workers while the next ones are read,
	// and handed to fn, in the catalog's order, by a third goroutine: reading, building the kept
	// bundles and writing them overlap on two cores. At most a few packages are held at once.
	const workers = 2
	work := make(chan *part, workers)
	ordered := make(chan *part, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				p.result <- filterPart(p, wanted[p.pkg], cfg.Full)
			}
		}()
	}
	done := make(chan error, 1)
	go func() {
		var failed error
		for p := range ordered {
			if failed != nil {
				continue // its result may never come: the reader stopped
			}
			r := <-p.result
			failed = r.err
			if failed == nil {
				failed = rep.record(p.pkg, r, fn)
			}
			if failed != nil {
				done <- failed // seen by the reader at its next package
			}
		}
		if failed == nil {
			done <- nil
		}
		close(done)
	}()
	var workerErr error
	// Bundles come undecoded where the source allows (an FBC directory, an index.db: most of a
	// catalog's bytes are bundles, and heads-only keeps one per channel); filterPackage decodes
	// the ones it needs. A bundle left out is therefore not checked for a field of the wrong type.
	err := src.WalkSomePackagesDeferring(ctx, keep, func(pkg string, c *fbc.Catalog) error {
		if pkg != "" {
			found[pkg] = true
			if len(wanted) > 0 && wanted[pkg] == nil {
				return nil
			}
		}
		p := &part{pkg: pkg, c: c, result: make(chan filtered, 1)}
		for _, to := range []chan *part{work, ordered} {
			select {
			case workerErr = <-done:
				return workerErr
			case to <- p:
			}
		}
		return nil
	})
	close(work)
	close(ordered)
	wg.Wait()
	if workerErr == nil {
		workerErr = <-done
	}
	if workerErr != nil {
		return nil, workerErr
	}
	if err != nil {
		return nil, err
	}
	var missing []string
	for name := range wanted {
		if !found[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		noun := "package " + missing[0] + " is"
		if len(missing) > 1 {
			noun = "packages " + strings.Join(missing, ", ") + " are"
		}
		return nil, &Error{Package: missing[0], Msg: fmt.Sprintf("%s not in %s: correct the name%s", noun, src, nearNames(missing, found))}
	}
	sort.Slice(rep.Packages, func(i, j int) bool { return rep.Packages[i].Package < rep.Packages[j].Package })
	rep.Images = sortedKeys(rep.images)
	return rep, nil
}

// nearNames suggests the catalog's packages whose names contain a missing name or are contained
// in one, for a typo or a name given in part.
func nearNames(missing []string, found map[string]bool) string {
	var near []string
	for name := range found {
		for _, m := range missing {
			if strings.Contains(name, m) || strings.Contains(m, name) {
				near = append(near, name)
				break
			}
		}
	}
	if len(near) == 0 {
		return ""
	}
	sort.Strings(near)
	if len(near) > 5 {
		near = near[:5]
	}
	return " (the catalog has " + strings.Join(near, ", ") + ")"
}

// part is one package of the catalog on its way through Select; result receives it filtered.
type part struct {
	pkg    string
	c      *fbc.Catalog
	result chan filtered
}

// filtered is a package filtered and validated (out), with its report (nil for the blobs of no
// package), or why it cannot be.
type filtered struct {
	out  *fbc.Catalog
	prep *PackageReport
	err  error
}

// filterPart filters one package (its blobs p.c) by sel and validates the result; blobs of no
// package are kept as they are (oc-mirror keeps them too).
func filterPart(p *part, sel *Package, full bool) filtered {
	if p.pkg == "" {
		if err := decodeBundles(p.c); err != nil {
			return filtered{err: err}
		}
		return filtered{out: p.c}
	}
	out, prep, err := filterPackage(p.pkg, p.c, sel, full)
	if err != nil {
		return filtered{err: err}
	}
	// The kept bundles are decoded copies (out shares no blob with p.c): the blobs of the bundles
	// left out go back to the loader, which reads the next packages into them.
	fbc.ReleaseDeferred(p.c.Bundles)
	if errs := model.ValidateCatalog(out, model.Options{}).Errors(); len(errs) > 0 {
		return filtered{err: &Error{Package: p.pkg, Msg: fmt.Sprintf("package %s would be invalid after filtering (%s): the input is invalid there; fix it or leave the package out", p.pkg, errs[0].Error())}}
	}
	return filtered{out: out, prep: prep}
}

// record adds a filtered package to the report (its images too) and hands it to fn.
func (rep *Report) record(pkg string, r filtered, fn func(string, *fbc.Catalog) error) error {
	if r.prep != nil {
		for _, b := range r.out.Bundles {
			if b.Image != "" {
				if err := listable(pkg, b.Name, "image", b.Image); err != nil {
					return err
				}
				rep.images[b.Image] = true
			}
			for i, ri := range b.RelatedImages {
				if ri.Image != "" {
					if err := listable(pkg, b.Name, fmt.Sprintf("relatedImages[%d].image", i), ri.Image); err != nil {
						return err
					}
					rep.images[ri.Image] = true
				}
			}
		}
		rep.Packages = append(rep.Packages, r.prep)
	}
	return fn(pkg, r.out)
}

// listable refuses an image the image list cannot carry as one line: one that is no image
// reference (validation refuses it before; this keeps the list safe whatever reads the catalog).
func listable(pkg, bundle, field, image string) error {
	if p := imageref.Problem(image); p != "" {
		return &Error{Package: pkg, Msg: fmt.Sprintf("package %s bundle %s: %s %s is not an image reference: %s; fix it or leave the package out",
			pkg, bundle, field, imageref.Quote(image), p)}
	}
	return nil
}

// Options are the options of Write.
type Options struct {
	Format fbc.Format // fbc.JSON (default) or fbc.YAML
	Force  bool       // replace a non-empty output directory
	// BeforeCommit, if set, runs once everything is written and before it is moved into place;
	// an error leaves nothing at the output.
	BeforeCommit func(*Report) error
}

// Write filters the catalog of src and writes the result as a File-Based Catalog directory in
// opm's layout (OUT/<package>/catalog.json), atomically: on any error nothing is left at outDir.
func Write(ctx context.Context, src *source.Source, cfg *Config, outDir string, opts Options) (*Report, error) {
	if opts.Format == "" {
		opts.Format = fbc.JSON
	}
	target, err := atomicout.Dir(outDir, opts.Force)
	if err != nil {
		return nil, err
	}
	defer target.Abort()
	layout := ops.NewLayout(target.Path(), opts.Format)
	rep, err := Select(ctx, src, cfg, func(pkg string, c *fbc.Catalog) error {
		return target.Err(layout.Write(pkg, c))
	})
	if err != nil {
		return nil, err
	}
	if opts.BeforeCommit != nil {
		if err := opts.BeforeCommit(rep); err != nil {
			return nil, err
		}
	}
	return rep, target.Commit()
}

// Collect filters the catalog of src and returns the result whole (for writers that need the
// whole catalog, such as the index.db writer).
func Collect(ctx context.Context, src *source.Source, cfg *Config) (*fbc.Catalog, *Report, error) {
	all := &fbc.Catalog{}
	rep, err := Select(ctx, src, cfg, func(_ string, c *fbc.Catalog) error {
		all.Append(c)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return all, rep, nil
}

// WriteImages writes the image list, one image per line.
func (r *Report) WriteImages(w io.Writer) error {
	for _, img := range r.Images {
		if _, err := fmt.Fprintln(w, img); err != nil {
			return err
		}
	}
	return nil
}
