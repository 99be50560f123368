package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/filter"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newFilterCmd) }

const filterLong = `Keep the part of a catalog a disconnected cluster mirrors, as oc-mirror v2 does: the packages,
channels and versions of an ImageSetConfiguration (mirror.openshift.io/v2alpha1, or oc-mirror v1's
v1alpha2, whose mirror.operators have the same shape and are read the same, storageConfig unused; its
mirror.operators[] entry whose catalog is CATALOG, or --operator N) or of a catalog-filter
FilterConfiguration, given with --config FILE; or the same from flags. Without a version range
and without --full (full: true) each kept channel keeps only its head (heads-only, as oc-mirror).

OUT is a File-Based Catalog directory (OUT/<package>/catalog.json, or .yaml with -o yaml), an
index.db with --to sqlite, and with --to-image REF also an index image, as 'olmcat migrate' writes
them. --images FILE lists every image the filtered catalog references (each bundle image and
related image, unique and sorted, one per line): what a mirroring tool copies beside the catalog.
With --images-mapping REGISTRY[/PREFIX] the lines are SOURCE=DESTINATION, as 'oc image mirror -f
FILE' reads them, named as oc-mirror v2 names mirrored images: each image at its own repository
path under REGISTRY/PREFIX (registry.redhat.io/ubi8/ubi:8.9 -> REGISTRY/PREFIX/ubi8/ubi:8.9), a
digest reference under the tag sha256-HEX (the manifest, so its digest, copied unchanged), a
reference with a tag and a digest pulled by the digest and mirrored under the tag.
--report FILE gives, per package and channel, the head, the kept, added and removed bundles and
the default channel decision (JSON, with the image list).

Where oc-mirror would write a catalog opm rejects or mirror nothing without a word, olmcat refuses
with exit 2 and says what to set: a package or channel the catalog lacks, a default channel the
filter removes (set defaultChannel), a channel a range empties. Versions are ordered as OLM orders
them (1.21.0-555 is a version, not left out), minVersion = maxVersion keeps that version alone (as
oc-mirror v1; v2 keeps the channel head above it when the head only skips it), a range never
keeps bundles of other channels, the output is validated, and every kept bundle is checked to
reach its kept channel head as OLM's resolver upgrades: a bundle the filter cut off gets back the
bundles of its path (the report says which and why), one cut off in the input already is named on
stderr.

Selection flags (instead of --config):
  --package NAME                  keep the package (every channel)
  --channel PKG/CHANNEL           keep only these channels of PKG
  --min-version PKG[/CHANNEL]=V   keep versions >= V (of the package, or of one channel)
  --max-version PKG[/CHANNEL]=V   keep versions <= V
  --default-channel PKG=CHANNEL   the package's default channel in the output
  --bundle PKG/BUNDLE             keep this bundle in each channel that has it (oc-mirror's
                                  packages[].bundles), and the bundles its upgrades need
  --full                          keep every bundle of the kept channels

` + migrateImageHelp + `

` + referenceHelp

type filterFlags struct {
	config                    string
	operator                  int
	packages, channels        []string
	minVersions, maxVersions  []string
	defaultChannels           []string
	bundles                   []string
	full                      bool
	output, to, report, image string
	force                     bool
	mapping                   string // --images-mapping REGISTRY[/PREFIX]
}

func newFilterCmd() *cobra.Command {
	var (
		ff     filterFlags
		images migrateImageFlags
		in     inputFlags
	)
	cmd := &cobra.Command{
		Use:   "filter CATALOG OUT",
		Short: "Keep the packages, channels and versions to mirror (oc-mirror's ImageSetConfiguration), as an FBC, index.db or image",
		Long:  filterLong,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFilter(cmd, args[0], args[1], ff, images, in)
		},
	}
	f := cmd.Flags()
	f.StringVar(&ff.config, "config", "", "an ImageSetConfiguration (v2alpha1) or FilterConfiguration file ('-' for standard input)")
	f.IntVar(&ff.operator, "operator", -1, "with an ImageSetConfiguration: the mirror.operators[] entry to use (from 0); default: the one whose catalog is CATALOG, or the only one")
	f.StringArrayVar(&ff.packages, "package", nil, "keep this package (repeatable)")
	f.StringArrayVar(&ff.channels, "channel", nil, "keep this channel, PKG/CHANNEL (repeatable)")
	f.StringArrayVar(&ff.minVersions, "min-version", nil, "PKG=V or PKG/CHANNEL=V: keep versions >= V (repeatable)")
	f.StringArrayVar(&ff.maxVersions, "max-version", nil, "PKG=V or PKG/CHANNEL=V: keep versions <= V (repeatable)")
	f.StringArrayVar(&ff.defaultChannels, "default-channel", nil, "PKG=CHANNEL: the package's default channel in the output (repeatable)")
	f.StringArrayVar(&ff.bundles, "bundle", nil, "PKG/BUNDLE: keep this bundle in each channel that has it, instead of the heads (repeatable)")
	f.BoolVar(&ff.full, "full", false, "keep every bundle of the kept channels (oc-mirror's full: true), not only the heads")
	f.StringVarP(&ff.output, "output", "o", "json", "output format of the FBC: json or yaml")
	f.StringVar(&ff.to, "to", "fbc", "what to write: fbc (a File-Based Catalog directory) or sqlite (an index.db)")
	f.StringVar(&ff.report, "report", "", "write the report (per package and channel, and the images) as JSON to FILE ('-' for stdout)")
	f.StringVar(&ff.image, "images", "", "write every image the filtered catalog references, one per line, to FILE ('-' for stdout)")
	f.StringVar(&ff.mapping, "images-mapping", "", "REGISTRY[/PREFIX]: write --images as SOURCE=DESTINATION lines for 'oc image mirror -f FILE', each image under REGISTRY/PREFIX at its own repository path")
	f.BoolVar(&ff.force, "force", false, "replace an existing, non-empty output (never an input)")
	addInputFlags(f, &in)
	images.images = &in.images
	addMigrateImageFlags(f, &images)
	return cmd
}

func runFilter(cmd *cobra.Command, ref, out string, ff filterFlags, images migrateImageFlags, in inputFlags) error {
	if ff.to != "fbc" && ff.to != "sqlite" {
		return usageError{fmt.Errorf("--to must be fbc or sqlite, not %q", ff.to)}
	}
	format, err := fbc.ParseFormat(ff.output)
	if err != nil {
		return usageError{err}
	}
	if ff.to == "sqlite" && cmd.Flags().Changed("output") {
		return usageError{errors.New("-o sets the format of FBC files; --to sqlite writes an index.db")}
	}
	dest, err := images.destination()
	if err != nil {
		return err
	}
	if dest != "" && ff.to == "sqlite" {
		return usageError{errors.New("--to-image and --oci-layout write an FBC index image; they do not apply with --to sqlite")}
	}
	if images.server != "opm" && images.server != "olmcat" {
		return usageError{fmt.Errorf("--server must be opm or olmcat, not %q", images.server)}
	}
	var mapTo *mirrorDest
	if ff.mapping != "" {
		if ff.image == "" {
			return usageError{errors.New("--images-mapping says where the images go; say where the mapping is written with --images FILE ('-' for stdout)")}
		}
		d, err := parseMirrorDest(ff.mapping)
		if err != nil {
			return usageError{err}
		}
		mapTo = &d
	}
	cfg, err := filterConfig(cmd, ref, ff)
	if err != nil {
		return err
	}
	if cfg.Notice != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: %s\n", textsafe.Terminal(cfg.Notice))
	}
	startProgress(cmd).Phase("filtering")
	src, err := in.open(cmd, ref)
	if err != nil {
		return err
	}
	defer src.Close()
	if src.Format() == source.FormatSQLite {
		defer filterGC()()
	}
	if dest != "" && images.server == "opm" && src.Image() == nil {
		return usageError{errors.New("--to-image and --oci-layout with --server opm need an index image as CATALOG (the new image is built on its layers); for a local catalog, use --server olmcat")}
	}
	if dest != "" && images.server == "opm" && src.Format() != source.FormatSQLite {
		// The image would be built on the input's layers, whose catalog (every package) lies under the filtered one.
		return usageError{fmt.Errorf("%s is a File-Based Catalog image: an image built on its layers would still hold every package of its catalog; write the filtered image with --server olmcat", src)}
	}
	if err := guardMigrateOutputs(src, out, ff.report, dest); err != nil {
		return err
	}
	if ff.image != "" && ff.image != "-" {
		if err := source.CheckOutput(ff.image, src); err != nil {
			return err
		}
		for _, other := range []string{out, ff.report} {
			if other != "" && other != "-" && source.CheckOutputPaths(ff.image, other) != nil {
				return usageError{fmt.Errorf("--images %s must not be, contain or lie inside the output %s", ff.image, other)}
			}
		}
	}
	if ff.image == "-" && ff.report == "-" {
		return usageError{errors.New("--images - and --report - both write to standard output: send one to a file")}
	}
	report, err := openReport(cmd, ff.report, ff.force)
	if err != nil {
		return err
	}
	defer report.abort()
	imageList, err := openReport(cmd, ff.image, ff.force)
	if err != nil {
		return err
	}
	defer imageList.abort()
	beforeCommit := func(r *filter.Report) error {
		if err := report.write(r); err != nil {
			return err
		}
		if mapTo != nil {
			return imageList.write(imageMapping{r, *mapTo})
		}
		return imageList.write(imageLines{r})
	}

	var rep *filter.Report
	if ff.to == "sqlite" {
		rep, err = filterToSQLite(cmd, src, cfg, out, ff.force, beforeCommit)
	} else {
		rep, err = filter.Write(cmd.Context(), src, cfg, out, filter.Options{Format: format, Force: ff.force, BeforeCommit: beforeCommit})
	}
	activeProgress(cmd).Close()
	if err != nil {
		return filterFailure(src, err)
	}
	if err := report.commit(); err != nil {
		return err
	}
	if err := imageList.commit(); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	show := textsafe.Terminal // the names and reasons quote the catalog's text
	for _, p := range rep.Packages {
		for _, c := range p.Channels {
			for _, a := range c.Added {
				fmt.Fprintf(stderr, "olmcat: package %s channel %s: kept %s beyond the selection: %s\n", show(p.Package), show(c.Channel), show(a.Bundle), show(a.Why))
			}
		}
		for _, rc := range p.RemovedChannels {
			if rc.Reason != "not selected" {
				fmt.Fprintf(stderr, "olmcat: package %s: channel %s left out: %s\n", show(p.Package), show(rc.Channel), show(rc.Reason))
			}
		}
	}
	for _, s := range rep.CutOff() {
		fmt.Fprintf(stderr, "olmcat: warning: %s\n", show(s))
	}
	pkgs, chans, bundles, added := rep.Totals()
	extra := ""
	if added > 0 {
		extra = fmt.Sprintf(" (%d added to keep upgrade paths)", added)
	}
	fmt.Fprintf(summaryOut(cmd), "olmcat: filtered %s: kept %s, %s, %s%s, %s, into %s\n", src,
		plural.Of(pkgs, "package"), plural.Of(chans, "channel"), plural.Of(bundles, "bundle"), extra, plural.Of(len(rep.Images), "image"), out)
	if dest == "" {
		return nil
	}
	return writeMigratedImage(cmd, src, out, dest, ff.force, images)
}

// filterToSQLite writes the filtered catalog as an index.db, through the writer of migrate --to sqlite.
func filterToSQLite(cmd *cobra.Command, src *source.Source, cfg *filter.Config, out string, force bool, beforeCommit func(*filter.Report) error) (*filter.Report, error) {
	if !force {
		if _, err := os.Stat(out); err == nil {
			return nil, usageError{fmt.Errorf("output %s already exists: choose another path or pass --force to replace it", out)}
		}
	}
	cat, rep, err := filter.Collect(cmd.Context(), src, cfg)
	if err != nil {
		return nil, err
	}
	r, err := convert.ToSQLite(cmd.Context(), cat, out, convert.ToSQLiteOptions{Force: force,
		BeforeCommit: func(*convert.SQLiteReport) error { return beforeCommit(rep) }})
	if r != nil {
		fmt.Fprint(cmd.ErrOrStderr(), r.Summary())
	}
	var invalid *convert.InvalidCatalogError
	if errors.As(err, &invalid) {
		return nil, exitError{code: exitFindings, err: fmt.Errorf("the filtered catalog cannot be written as an index.db (%s): %s", plural.Of(len(invalid.Issues), "problem"), invalid.Issues.Error())}
	}
	return rep, err
}

// filterFailure gives a filter that cannot be applied as asked exit 2, and a catalog that does
// not load its load problems.
func filterFailure(src *source.Source, err error) error {
	var fe *filter.Error
	if errors.As(err, &fe) {
		return usageError{err}
	}
	var ue usageError
	var ee exitError
	if errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	return loadFailure(src.String(), err)
}

// imageLines writes the image list, one per line (the --images output).
type imageLines struct{ r *filter.Report }

func (l imageLines) WriteJSON(w io.Writer) error { return l.r.WriteImages(w) }

// maxFilterConfig caps what --config reads: an ImageSetConfiguration is a few kilobytes, and the
// YAML decoder takes some 70 times a document's size in memory (a 2 GB file, or an endless FIFO,
// would otherwise be read whole).
const maxFilterConfig = 1 << 20 // 1 MiB, as the message says

// readFilterConfig reads the --config file ("-": stdin), refusing one larger than maxFilterConfig.
func readFilterConfig(stdin io.Reader, name string) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFilterConfig+1))
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	if len(data) > maxFilterConfig {
		return nil, fmt.Errorf("--config %s is larger than %s: an ImageSetConfiguration or FilterConfiguration is a few kilobytes; give the right file", name, "1 MiB")
	}
	return data, nil
}

// filterConfig reads --config, or builds the configuration from the selection flags.
func filterConfig(cmd *cobra.Command, ref string, ff filterFlags) (*filter.Config, error) {
	if cmd.Flags().Changed("operator") && ff.operator < 0 {
		return nil, usageError{fmt.Errorf("--operator %d: give the position of a mirror.operators[] entry, from 0", ff.operator)}
	}
	fromFlags := len(ff.packages) > 0 || len(ff.channels) > 0 || len(ff.minVersions) > 0 || len(ff.maxVersions) > 0 || len(ff.defaultChannels) > 0 || len(ff.bundles) > 0
	if ff.config != "" {
		if fromFlags || ff.full {
			return nil, usageError{errors.New("give --config or the selection flags (--package, --channel, --min-version, --max-version, --default-channel, --bundle, --full), not both")}
		}
		if ff.config == "-" && ref == "-" {
			return nil, usageError{errors.New("--config - and CATALOG - both read standard input: give one as a file")}
		}
		data, err := readFilterConfig(cmd.InOrStdin(), ff.config)
		if err != nil {
			return nil, usageError{err}
		}
		cfg, err := filter.ParseConfig(data, ff.config, filter.Selector{Index: ff.operator, Catalog: ref})
		if err != nil {
			return nil, usageError{err}
		}
		return cfg, nil
	}
	if cmd.Flags().Changed("operator") {
		return nil, usageError{errors.New("--operator picks an entry of the --config ImageSetConfiguration; give --config")}
	}
	cfg, err := filter.FromFlags(filter.Flags{Packages: ff.packages, Channels: ff.channels, MinVersions: ff.minVersions,
		MaxVersions: ff.maxVersions, DefaultChannels: ff.defaultChannels, Bundles: ff.bundles, Full: ff.full})
	if err != nil {
		return nil, usageError{err}
	}
	return cfg, nil
}
