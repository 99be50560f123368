package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/bundlefetch"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// referenceHelp says what a catalog reference may be; every command's help ends with it.
const referenceHelp = `A catalog reference is one of: an FBC directory or file (JSON or YAML), - for standard input,
an unpacked catalog directory (olmcat unpack; its objects/ refs are resolved), an index.db
(recognized by its content, not its name), an image (REGISTRY/REPO:TAG, oci-layout:DIR[:TAG],
docker-archive:FILE), git:REV:PATH for PATH as it is at a git revision, or a catalog template
file (olm.template.basic, olm.semver, olm.template.substitutes), rendered as it is read.`

// inputFlags are the flags of every command that reads catalogs.
type inputFlags struct {
	images       indeximage.Options
	allowEmpty   bool
	migrateLevel tofbc.MigrateLevel
	templates    *templateInputs
	imageRef     *imageRefTemplate // render's --alpha-image-ref-template, for bundle directories
}

func addInputFlags(fs *pflag.FlagSet, f *inputFlags) {
	addImageFlags(fs, &f.images)
	fs.BoolVar(&f.allowEmpty, "allow-empty", false, "accept a catalog without any blob (by default an input error, so that a wrong path fails), and read one without packages without a warning")
	if f.templates == nil { // one for the subcommands that share f (inspect)
		f.templates = &templateInputs{}
	}
	addTemplateFlags(fs, f.templates)
}

// templateInputs are the flags that say how the bundle images of a catalog template are
// rendered, and the one bundle renderer every template the command reads shares, so that a
// bundle image two inputs name (both sides of a diff) is pulled once.
type templateInputs struct {
	cacheDir    string
	bundlesFrom []string
	cacheMaxAge cacheAge
	parallel    pullParallelism
	// allowRegistries and allowLocal are what a template's bundle images may name beyond public
	// registries (--allow-registry, --allow-local-images).
	allowRegistries []string
	allowLocal      bool

	once    sync.Once
	bundles template.BundleRenderer

	// lent are the command's own inputs that are --bundles-from catalogs, once opened, by
	// reference: the renderer reads them instead of opening a catalog a second time (a large
	// index image is then pulled and extracted once). The command closes them, as its other inputs.
	lentMu sync.Mutex
	lent   map[string]*source.Source
}

// defaultCacheMaxAge is how long a bundle cache entry no run uses is kept.
const defaultCacheMaxAge = 30 * 24 * time.Hour

func addTemplateFlags(fs *pflag.FlagSet, t *templateInputs) {
	fs.StringVar(&t.cacheDir, "cache-dir", "", "keep the bundle images pulled to render catalog templates here (DIR/bundles, by digest) and reuse them")
	fs.StringArrayVar(&t.bundlesFrom, "bundles-from", nil, "render a template's bundles from this catalog reference (e.g. the published catalog) when it has them (same image, in the form rendered), pulling only the others; may be given more than once (the first that has a bundle gives it)")
	t.cacheMaxAge = cacheAge(defaultCacheMaxAge)
	fs.Var(&t.cacheMaxAge, "cache-max-age", "remove the --cache-dir bundles no run has used for this long (days, 30d, or a duration, 36h; 0 keeps them all)")
	t.parallel = bundlefetch.DefaultParallel
	fs.Var(&t.parallel, "pull-parallelism", "how many bundle images of a template to pull at once (at least 1)")
	fs.Var(allowedRegistries{&t.allowRegistries}, "allow-registry", "let templates name bundle images in this registry although it is on a loopback, private, link-local or other non-public address, or this machine's own: HOST (any port), HOST:PORT, a CIDR (10.0.0.0/8) or localhost; may be given more than once; $OLMCAT_ALLOW_REGISTRY adds a comma-separated list")
	fs.BoolVar(&t.allowLocal, "allow-local-images", false, "let templates name bundle images by a path on this machine (oci-layout:DIR, docker-archive:FILE)")
}

// templateRegistriesAllowedInTests are added to every --allow-registry: the tests' registries
// are on loopback. Only tests set it.
var templateRegistriesAllowedInTests []string

// refPolicy is what the bundle images of the command's templates may name.
func (t *templateInputs) refPolicy() *indeximage.RefPolicy {
	hosts := append(slices.Clone(t.allowRegistries), envAllowedRegistries()...)
	hosts = append(hosts, templateRegistriesAllowedInTests...)
	return &indeximage.RefPolicy{AllowHosts: hosts, AllowLocal: t.allowLocal, LocalPathRefused: overlapsAnOutput}
}

// allowedRegistries is the value of --allow-registry: a list of checked HOST[:PORT], CIDR or
// localhost.
type allowedRegistries struct{ list *[]string }

func (a allowedRegistries) String() string {
	if a.list == nil {
		return "[]"
	}
	return "[" + strings.Join(*a.list, ",") + "]"
}
func (a allowedRegistries) Type() string { return "host" }
func (a allowedRegistries) Set(s string) error {
	if err := indeximage.ParseAllowedHost(s); err != nil {
		return err
	}
	*a.list = append(*a.list, s)
	return nil
}

// cacheAge is the value of --cache-max-age.
type cacheAge time.Duration

func (a *cacheAge) String() string { return bundlefetch.FormatAge(time.Duration(*a)) }
func (a *cacheAge) Type() string   { return "age" }
func (a *cacheAge) Set(s string) error {
	d, err := bundlefetch.ParseAge(s)
	*a = cacheAge(d)
	return err
}

// pullParallelism is the value of --pull-parallelism: a whole number, at least 1.
type pullParallelism int

func (p *pullParallelism) String() string { return strconv.Itoa(int(*p)) }
func (p *pullParallelism) Type() string   { return "int" }
func (p *pullParallelism) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("want a whole number of pulls at once, at least 1")
	}
	*p = pullParallelism(n)
	return nil
}

// bundleRenderer is the renderer of the bundle images of the command's templates: parallel, with
// --cache-dir and --bundles-from; csvMetadata says the command renders bundles as olm.csv.metadata
// (--migrate-level bundle-object-to-csv-metadata). The cache directory may not be one of the
// command's inputs. The --bundles-from catalogs it opens are closed when the command ends.
func (t *templateInputs) bundleRenderer(cmd *cobra.Command, images indeximage.Options, src source.Options, csvMetadata bool) template.BundleRenderer {
	t.once.Do(func() {
		var inputs []string
		for _, arg := range cmd.Flags().Args() {
			if r, err := source.Parse(arg); err == nil && r.Path != "" && r.Form != source.FormGit {
				inputs = append(inputs, r.Path)
			}
		}
		images.Untrusted = t.refPolicy() // the bundle images a template names, not the inputs
		// A --bundles-from that is itself a template renders its bundles under the same policy.
		src.Bundles = source.BundleImages(images)
		f, err := bundlefetch.New(bundlefetch.Options{Images: images, CacheDir: t.cacheDir, BundlesFrom: t.bundlesFrom, Lent: t.lentSource,
			CSVMetadata: csvMetadata, MaxAge: time.Duration(t.cacheMaxAge), Parallel: int(t.parallel), Source: src, Log: cmd.ErrOrStderr()}, inputs...)
		if err != nil {
			t.bundles = failingRenderer{err}
			return
		}
		atExit(cmd.Context(), func() { f.Close() })
		t.bundles = f
	})
	return t.bundles
}

// opened lends s to the bundle renderer when it is a --bundles-from catalog.
func (t *templateInputs) opened(s *source.Source) {
	t.lentMu.Lock()
	defer t.lentMu.Unlock()
	for _, ref := range t.bundlesFrom {
		from, err := source.Parse(ref)
		if err != nil || !from.Same(s.Ref()) {
			continue
		}
		if t.lent == nil {
			t.lent = map[string]*source.Source{}
		}
		if l := t.lent[ref]; l == nil || l.Closed() {
			t.lent[ref] = s
		}
	}
}

func (t *templateInputs) lentSource(ref string) *source.Source {
	t.lentMu.Lock()
	defer t.lentMu.Unlock()
	return t.lent[ref]
}

// failingRenderer reports, when a template is rendered, why its bundles cannot be (a --cache-dir
// inside an input).
type failingRenderer struct{ err error }

func (r failingRenderer) RenderBundles(context.Context, []string) ([]fbc.Bundle, error) {
	return nil, r.err
}

// open opens a catalog reference for cmd; close the source when done.
func (f inputFlags) open(cmd *cobra.Command, ref string) (*source.Source, error) {
	if err := bundleDirNotCatalog(ref); err != nil {
		return nil, err
	}
	return source.Open(cmd.Context(), ref, f.options(cmd))
}

func (f inputFlags) options(cmd *cobra.Command) source.Options {
	templates := renderTemplate
	if f.migrateLevel == tofbc.LevelCSVMetadata {
		templates = renderTemplateAt(f.migrateLevel)
	}
	o := source.Options{Images: f.images, AllowEmpty: f.allowEmpty, MigrateLevel: f.migrateLevel, Stdin: cmd.InOrStdin(),
		Templates: templates, Warn: inputWarning(cmd)}
	countReads(&o, activeProgress(cmd))
	if f.templates != nil {
		o.Bundles = f.templates.bundleRenderer(cmd, f.images, o, f.migrateLevel == tofbc.LevelCSVMetadata)
		if len(f.templates.bundlesFrom) > 0 {
			o.Opened = f.templates.opened // set after: the renderer's own opening lends nothing
		}
	}
	return o
}

// migrateLevelHelp is the help of --migrate-level on the commands that read catalogs without
// writing them (diff, validate, graph, inspect, serve, compat).
const migrateLevelHelp = "none or bundle-object-to-csv-metadata: as render and render-template apply it, to index.db inputs and to the bundles catalog templates render from images"

// addMigrateLevelFlag adds --migrate-level, which sets *level.
func addMigrateLevelFlag(fs *pflag.FlagSet, level *tofbc.MigrateLevel) {
	fs.Var(migrateLevelValue{level}, "migrate-level", migrateLevelHelp)
}

// migrateLevelValue is the value of --migrate-level: none or bundle-object-to-csv-metadata.
type migrateLevelValue struct{ level *tofbc.MigrateLevel }

func (m migrateLevelValue) String() string {
	if m.level == nil || *m.level == "" {
		return string(tofbc.LevelNone)
	}
	return string(*m.level)
}
func (m migrateLevelValue) Type() string { return "level" }
func (m migrateLevelValue) Set(s string) error {
	l, err := tofbc.ParseMigrateLevel(s)
	if err != nil {
		return err
	}
	*m.level = l
	return nil
}

// exitFuncs are what is done when a command ends, whatever its outcome (the --bundles-from
// catalogs a command opened are closed): execute runs them.
type exitFuncs struct {
	mu  sync.Mutex
	fns []func()
}

type exitFuncsKey struct{}

// withExitFuncs gives ctx a list of functions to run when the command ends, and the function that
// runs them, last registered first.
func withExitFuncs(ctx context.Context) (context.Context, func()) {
	e := &exitFuncs{}
	return context.WithValue(ctx, exitFuncsKey{}, e), func() {
		e.mu.Lock()
		fns := e.fns
		e.fns = nil
		e.mu.Unlock()
		for i := len(fns) - 1; i >= 0; i-- {
			fns[i]()
		}
	}
}

// atExit runs fn when the command of ctx ends; without withExitFuncs (a test calling a command
// directly), never.
func atExit(ctx context.Context, fn func()) {
	if ctx == nil {
		return
	}
	if e, ok := ctx.Value(exitFuncsKey{}).(*exitFuncs); ok {
		e.mu.Lock()
		e.fns = append(e.fns, fn)
		e.mu.Unlock()
	}
}

// inputWarning prints what package source says about an input on the command's stderr.
func inputWarning(cmd *cobra.Command) func(string) {
	return func(msg string) { fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: warning: %s\n", textsafe.TerminalLines(msg)) }
}

// summaryTo writes what write writes (a report's summary, which names packages and bundles) to w
// with the control characters of the catalog's text escaped, its own line breaks kept.
func summaryTo(w io.Writer, write func(io.Writer)) {
	var b strings.Builder
	write(&b)
	io.WriteString(w, textsafe.TerminalLines(b.String()))
}

// openAll opens every reference; on error the ones already open are closed.
func (f inputFlags) openAll(cmd *cobra.Command, refs []string) ([]*source.Source, func(), error) {
	var srcs []*source.Source
	closeAll := func() {
		for _, s := range srcs {
			s.Close()
		}
	}
	stdin := 0
	for _, ref := range refs {
		if ref == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return nil, func() {}, usageError{errTwoStdin}
	}
	for _, ref := range refs {
		s, err := f.open(cmd, ref)
		if err != nil {
			closeAll()
			return nil, func() {}, err
		}
		srcs = append(srcs, s)
	}
	return srcs, closeAll, nil
}

// addImageFlags adds the flags of every command that reads images.
func addImageFlags(fs *pflag.FlagSet, opts *indeximage.Options) {
	fs.StringVar(&opts.Platform, "platform", indeximage.DefaultPlatform, "image to read from a multi-arch index image, OS/ARCH[/VARIANT]")
	fs.BoolVar(&opts.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for image registries (localhost and loopback registries always allow HTTP)")
	addRegistryFlags(fs, opts)
}

// addRegistryFlags adds opm's registry flags (compat has its own --insecure and --platform).
func addRegistryFlags(fs *pflag.FlagSet, opts *indeximage.Options) {
	fs.BoolVar(&opts.UseHTTP, "use-http", false, "allow plain HTTP for image registries, as opm's --use-http (localhost, 127.0.0.1 and ::1 always allow it)")
	fs.BoolVar(&opts.SkipTLSVerify, "skip-tls-verify", false, "do not verify image registries' TLS certificates, as opm's --skip-tls-verify")
	addRegistryTimeoutFlag(fs, &opts.RegistryTimeout)
}

// addRegistryTimeoutFlag adds --registry-timeout, on every command that reads images.
func addRegistryTimeoutFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "registry-timeout", indeximage.DefaultRegistryTimeout, "give up on an image registry that sends no response headers, or no more of a body, for this long (a body that keeps moving is never cut off)")
}
