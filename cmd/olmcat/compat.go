package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/grpccompat/compat"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func init() { register(newCompatCmd) }

const compatLong = `Prove that two catalog servers give every api.Registry client the same answers, e.g. before
switching a catalog image from 'opm registry serve --database index.db' to serving its migrated FBC:

  olmcat compat index.db migrated-dir/

Each side is a catalog reference (below), served in-process as 'olmcat serve' serves it (an
index.db answering like opm registry serve, anything else like opm serve), a live server
(grpc://HOST:PORT or a bare HOST:PORT; grpcs://HOST:PORT for TLS), or a recording of answers (a
directory with plan.json and answers, as in the conformance corpus).

Both sides are surveyed (ListPackages, ListBundles, GetPackage) and the query plan is derived from
the union of what they list: every package, channel, bundle, upgrade edge and provided API, plus a
not-found probe per method (--plan runs a saved plan instead; --save-plan writes it; --sample N
runs N calls of it). Answers are compared field by field after the normalizations of the known,
legitimate differences (--normalize, see the list below; --strict turns them all off). Those that
absorb SQLite-vs-FBC differences apply only when one side is an index.db server and the other an
FBC server. The report lists, per method, the calls that are equal, equal after normalization,
different and failed, then each difference with its request, both answers and what differs, one
line per field: GetBundle(etcd, alpha, etcdoperator.v0.9.2).properties[3].value $.group: left "a"
right "b" (the package documentation of grpccompat/compat describes these lines).

--http compares catalogd's HTTP API (OLM v1) instead: each side is a live server
(http://HOST:PORT, or http://HOST:PORT/catalogs/NAME as a ClusterCatalog's URL), a recorded answer
set (a directory with all.jsonl, the body of /api/v1/all, and optional metas/QUERY.jsonl), or a
catalog olmcat serves in-process as 'olmcat serve --http-addr' does. /api/v1/all is compared as a
set of blobs, then every metas query derived from the blobs of both (by schema, package, name and
their combinations, plus values and a parameter that match nothing): status and blobs.

Exit codes: 0 every call answered the same; 1 some calls differ; 2 bad usage, a side that cannot be
opened or reached, or a run that could not be completed (the partial report is still written).

` + referenceHelp

type compatFlags struct {
	output, normalize, planFile, savePlan string
	strict                                bool
	sample                                int
	seed                                  uint64
	timeout                               time.Duration
	concurrency, maxDetails               int
	tls, insecure                         bool
	caFile, platform                      string
	force, allowEmpty                     bool
	leftKind, rightKind                   string
	http                                  bool
	registry                              indeximage.Options // --use-http, --skip-tls-verify
	templates                             *templateInputs
	migrateLevel                          tofbc.MigrateLevel
}

// sourceOptions are how compat opens the catalogs it is given (catalog templates included).
func (f compatFlags) sourceOptions(cmd *cobra.Command) source.Options {
	images := indeximage.Options{Platform: f.platform, Insecure: f.insecure, UseHTTP: f.registry.UseHTTP, SkipTLSVerify: f.registry.SkipTLSVerify}
	o := source.Options{Images: images, AllowEmpty: f.allowEmpty, MigrateLevel: f.migrateLevel, Stdin: cmd.InOrStdin(),
		Templates: renderTemplateAt(f.migrateLevel), Warn: inputWarning(cmd)}
	countReads(&o, activeProgress(cmd))
	o.Bundles = f.templates.bundleRenderer(cmd, images, o, f.migrateLevel == tofbc.LevelCSVMetadata)
	return o
}

func newCompatCmd() *cobra.Command {
	f := compatFlags{templates: &templateInputs{}}
	cmd := &cobra.Command{
		Use:   "compat LEFT RIGHT",
		Short: "Check that two catalog servers (index.db, FBC, live, recorded) answer every gRPC call the same",
		Long:  compatLong + "\n\nNormalizations:\n" + normalizationHelp(),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError{fmt.Errorf("compat takes LEFT and RIGHT, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runCompat(cmd, args[0], args[1], f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", compat.FormatText, "report format: text, json or markdown")
	fl.StringVar(&f.normalize, "normalize", "all", "normalizations to apply: comma list of names, all, none; -NAME removes one")
	fl.BoolVar(&f.strict, "strict", false, "apply no normalization at all")
	fl.StringVar(&f.planFile, "plan", "", "run the calls of this plan.json instead of deriving the plan")
	fl.StringVar(&f.savePlan, "save-plan", "", "write the plan that was run to this file (corpus plan.json format)")
	fl.BoolVar(&f.force, "force", false, "with --save-plan: overwrite an existing file")
	fl.IntVar(&f.sample, "sample", 0, "run only N calls of the plan (plus ListPackages and ListBundles), picked with --seed")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of --sample: the same seed picks the same calls")
	fl.DurationVar(&f.timeout, "timeout", time.Minute, "deadline of every call (and of reaching a live server)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "calls in flight (default 4 per CPU)")
	fl.IntVar(&f.maxDetails, "max-details", 100, "differences and errors reported in full")
	fl.BoolVar(&f.tls, "tls", false, "connect to grpc:// servers with TLS")
	fl.BoolVar(&f.insecure, "insecure", false, "TLS without verifying server certificates; for image registries, allow plain HTTP and unverified TLS")
	fl.StringVar(&f.caFile, "ca-file", "", "PEM CA certificates to verify TLS servers with (implies --tls)")
	fl.StringVar(&f.leftKind, "left-kind", "auto", "kind of server LEFT is when it cannot be told from its answers: sqlite, fbc or auto")
	fl.StringVar(&f.rightKind, "right-kind", "auto", "kind of server RIGHT is: sqlite, fbc or auto")
	fl.BoolVar(&f.http, "http", false, "compare catalogd's HTTP API (OLM v1: /api/v1/all and /api/v1/metas) instead of gRPC")
	fl.BoolVar(&f.allowEmpty, "allow-empty", false, "accept a catalog without any blob (by default an input error, so that a wrong path fails), and read one without packages without a warning")
	fl.StringVar(&f.platform, "platform", indeximage.DefaultPlatform, "for index images: image to read from a multi-arch index, OS/ARCH[/VARIANT]")
	addRegistryFlags(fl, &f.registry)
	addTemplateFlags(fl, f.templates)
	addMigrateLevelFlag(fl, &f.migrateLevel)
	return cmd
}

func normalizationHelp() string {
	var b strings.Builder
	for _, n := range compat.Normalizations() {
		scope := "any sides"
		if n.CrossKind {
			scope = "sqlite vs fbc"
		}
		fmt.Fprintf(&b, "  %-25s %s, class %s, %s: %s\n", n.Name, n.Refs, n.Class, scope, n.Doc)
	}
	return b.String()
}

func runCompat(cmd *cobra.Command, leftSpec, rightSpec string, f compatFlags) error {
	opts, err := f.options()
	if err != nil {
		return usageError{err}
	}
	if f.http {
		return runCompatHTTP(cmd, leftSpec, rightSpec, f)
	}
	defer compatGC()()
	var planOut *atomicout.Target
	if f.savePlan != "" {
		if err := source.CheckOutputPaths(f.savePlan, leftSpec, rightSpec); err != nil {
			return err
		}
		// Refuse an existing file now, not after a long comparison.
		if planOut, err = atomicout.File(f.savePlan, f.force); err != nil {
			return usageError{fmt.Errorf("--save-plan: %w", err)}
		}
		defer planOut.Abort()
	}
	ctx := cmd.Context()
	p := startProgress(cmd)
	p.Phase("opening both sides")
	open := compat.OpenOptions{
		Dial:   compat.DialOptions{TLS: f.tls, Insecure: f.insecure, CAFile: f.caFile, Timeout: f.timeout},
		Source: f.sourceOptions(cmd),
	}
	if p != nil {
		opts.Progress = func(done, total int) { p.Set("call", done, total) }
	}
	leftKind, err := compat.ParseKind(f.leftKind)
	if err != nil {
		return usageError{fmt.Errorf("--left-kind: %w", err)}
	}
	rightKind, err := compat.ParseKind(f.rightKind)
	if err != nil {
		return usageError{fmt.Errorf("--right-kind: %w", err)}
	}
	if leftSpec == "-" && rightSpec == "-" {
		return usageError{errTwoStdin}
	}
	left, right, err := openSides(ctx, leftSpec, rightSpec, open)
	if err != nil {
		return usageError{err}
	}
	left, right = compat.WithKind(left, leftKind), compat.WithKind(right, rightKind)
	defer left.Close()
	defer right.Close()
	p.Phase("comparing")
	report, checkErr := compat.Check(ctx, left, right, opts)
	p.Close()
	if report == nil {
		return usageError{checkErr}
	}
	if err := report.Write(cmd.OutOrStdout(), f.output); err != nil {
		return err
	}
	if planOut != nil && report.Plan != nil {
		if err := savePlan(planOut, report.Plan); err != nil {
			return fmt.Errorf("--save-plan: %w", err)
		}
	}
	switch {
	case checkErr != nil:
		return exitError{code: exitUsage, err: fmt.Errorf("the comparison could not be completed: %w", checkErr)}
	case report.Verdict() == "incomplete":
		return exitError{code: exitUsage, err: fmt.Errorf("%d calls could not be compared (see the errors in the report)", report.Total.Errors)}
	case !report.Equal():
		return exitError{code: exitFindings}
	}
	return nil
}

func (f compatFlags) options() (compat.Options, error) {
	o := compat.Options{Sample: f.sample, Seed: f.seed, Strict: f.strict, Timeout: f.timeout,
		Concurrency: f.concurrency, MaxDetails: f.maxDetails}
	switch f.output {
	case compat.FormatText, "table", compat.FormatJSON, compat.FormatMarkdown:
	default:
		return o, fmt.Errorf("-o must be text, json or markdown, not %q", f.output)
	}
	if f.sample < 0 || f.timeout <= 0 || f.concurrency < 0 || f.maxDetails < 0 {
		return o, errors.New("--sample, --timeout, --concurrency and --max-details must not be negative (and --timeout not zero)")
	}
	names, err := compat.ParseNormalizations(f.normalize)
	if err != nil {
		return o, err
	}
	o.Normalize = names
	if f.planFile != "" {
		if o.Plan, err = compat.LoadPlan(f.planFile); err != nil {
			return o, err
		}
	}
	return o, nil
}

// openSides opens both sides at once (loading a big FBC takes a while).
func openSides(ctx context.Context, leftSpec, rightSpec string, o compat.OpenOptions) (compat.Target, compat.Target, error) {
	var (
		wg     sync.WaitGroup
		sides  [2]compat.Target
		errs   [2]error
		labels = [2]string{"left", "right"}
	)
	for i, spec := range []string{leftSpec, rightSpec} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sides[i], errs[i] = compat.OpenTarget(ctx, spec, o)
			if errs[i] != nil && !source.IsInputError(errs[i]) {
				errs[i] = fmt.Errorf("%s side: %w", labels[i], errs[i])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[0], errs[1]); err != nil {
		for _, s := range sides {
			if s != nil {
				s.Close()
			}
		}
		return nil, nil, err
	}
	return sides[0], sides[1], nil
}

func savePlan(out *atomicout.Target, p compat.Plan) error {
	file, err := os.Create(out.Path())
	if err != nil {
		return out.Err(err)
	}
	if err := p.Write(file); err != nil {
		file.Close()
		return out.Err(err)
	}
	if err := file.Close(); err != nil {
		return out.Err(err)
	}
	return out.Commit()
}

func isTerminal(w io.Writer) bool {
	f := fileOf(w)
	return f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// fileOf is the file a writer writes to, looking through the writer main wraps standard output
// in, or nil.
func fileOf(w io.Writer) *os.File {
	switch w := w.(type) {
	case *os.File:
		return w
	case interface{ File() *os.File }:
		return w.File()
	}
	return nil
}
