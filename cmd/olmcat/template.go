package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

func init() {
	register(newRenderTemplateCmd)
	register(newConvertTemplateCmd)
}

const renderTemplateLong = `Render a catalog template into a File-Based Catalog on standard output, as
'opm alpha render-template' (v1.73) does, byte for byte: the same arguments, flags and output, so a
script changes 'opm alpha' to 'olmcat' and nothing else.

  olmcat render-template basic catalog-templates/basic.yaml -o yaml
  olmcat render-template catalog-templates/semver.yaml      # TYPE from the template's schema
  olmcat render-template semver < semver.yaml               # standard input

TYPE is basic (olm.template.basic), semver (olm.semver) or substitutes (olm.template.substitutes);
without it the type comes from the schema of the file's first document (the key's case does not
matter, as in opm). Only the first YAML or JSON document of FILE is read; no FILE, or -, is
standard input.

Each bundle image the template names is pulled once and rendered as 'opm render IMAGE' renders it;
--migrate-level bundle-object-to-csv-metadata turns the manifests of those bundles (never blobs
copied from the template) into one olm.csv.metadata property. Registries are reached as by every
olmcat command: credentials from the docker/podman config, plain HTTP for localhost and loopback
addresses, and for any registry with --use-http.

Faster than opm in CI: bundle images are pulled 8 at a time (opm: one after another;
--pull-parallelism N); --cache-dir DIR keeps them by manifest digest between runs, verified against
it on every use (a tag costs one HEAD request, a cached digest none; entries no run used for
--cache-max-age, 30d, are removed);
--bundles-from CATALOG takes the bundles a catalog already has (the published
catalog, its index image; more than once for several) and pulls only the others: olm.csv.metadata
bundles only with --migrate-level bundle-object-to-csv-metadata, as opm would print them.

Output (-o): json (default) and yaml in opm's order, or mermaid, opm's picture of the channels.
On failure nothing is written to standard output, stderr has opm's "Error: ..." line and an
"olmcat:" line saying what to do (opm follows its error with the whole usage text instead), and
the exit code is 1, as opm's.`

func newRenderTemplateCmd() *cobra.Command {
	var (
		output, level string
		reg           templateRegistryFlags
		bundles       templateInputs
	)
	cmd := &cobra.Command{
		Use:   "render-template [TYPE] [FILE]",
		Short: "Render a catalog template (basic, semver, substitutes) as opm alpha render-template does",
		Long:  renderTemplateLong,
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var typ, file string
			switch len(args) {
			case 1:
				if template.SchemaOfType(args[0]) != "" {
					typ = args[0]
				} else {
					file = args[0]
				}
			case 2:
				typ, file = args[0], args[1]
			}
			run := templateRun{file: file, typ: typ, bundlesFrom: bundles.bundlesFrom}
			fail := func(err error) error { return templateFailure(cmd, run, err) }
			if typ != "" && template.SchemaOfType(typ) == "" {
				run.typoOf = nearestWord(typ, template.Types)
				return fail(fmt.Errorf("invalid template type %q, must be one of: [%s]", typ, strings.Join(template.Types, " ")))
			}
			opts, err := reg.options(cmd.ErrOrStderr())
			if err != nil {
				return fail(err)
			}
			migrate, err := tofbc.ParseMigrateLevel(level)
			if err != nil {
				return fail(err)
			}
			if !slices.Contains([]string{template.OutputJSON, template.OutputYAML, template.OutputMermaid}, output) {
				return fail(fmt.Errorf("invalid --output value %q, expected (json|yaml|mermaid)", output))
			}
			p := startProgress(cmd)
			p.Phase("rendering")
			data, err := readTemplateInput(cmd, file)
			if err != nil {
				return fail(err)
			}
			run.data = data
			tmpl, err := template.Parse(typ, data)
			if err != nil {
				return fail(err)
			}
			renderer := bundles.bundleRenderer(cmd, opts, source.Options{Images: opts, Stdin: cmd.InOrStdin(), Templates: renderTemplate},
				migrate == tofbc.LevelCSVMetadata)
			if p != nil {
				renderer = countedRenderer{renderer, p}
			}
			rendered, err := template.RenderStreamed(cmd.Context(), tmpl, renderer,
				template.Options{CSVMetadata: migrate == tofbc.LevelCSVMetadata}, output)
			var writeErr *template.WriteError
			if errors.As(err, &writeErr) {
				return fail(fmt.Errorf("writing output: %v", err))
			} else if err != nil {
				return fail(err)
			}
			defer rendered.Close()
			if isTerminal(cmd.OutOrStdout()) {
				p.Close()
			}
			p.Phase("writing")
			w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<20)
			if err := rendered.Write(w); err != nil {
				return fail(fmt.Errorf("writing output: %v", err))
			}
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "json", "output format: json, yaml or mermaid")
	f.StringVar(&level, "migrate-level", "none", "none or bundle-object-to-csv-metadata (applies to the bundles rendered from images)")
	reg.add(f)
	addTemplateFlags(f, &bundles)
	return cmd
}

const convertTemplateLong = `Turn a File-Based Catalog into a basic catalog template, as 'opm alpha convert-template basic'
(v1.73) does, byte for byte: every blob becomes an entry, in the order of the input, with its keys
in alphabetical order, and each olm.bundle becomes {schema, image}, to be rendered again from its
image. FILE is an FBC stream (JSON or YAML documents); no FILE, or -, is standard input.

  olmcat convert-template basic catalog/my-operator/catalog.yaml -o yaml > catalog-templates/basic.yaml

For a whole catalog of any kind (an index.db, an index image, an FBC directory), 'olmcat migrate
CATALOG OUT --to basic-template' writes one template per package.`

func newConvertTemplateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "convert-template",
		Short: "Turn a File-Based Catalog into a catalog template, as opm alpha convert-template does",
		Long:  convertTemplateLong,
		Args:  cobra.NoArgs,
	}
	var output string
	basic := &cobra.Command{
		Use:   "basic [FILE]",
		Short: "Turn a File-Based Catalog into a basic template (olm.template.basic)",
		Long:  convertTemplateLong,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			fail := func(err error) error { return templateFailure(cmd, templateRun{file: file}, err) }
			if output != template.OutputJSON && output != template.OutputYAML {
				return fail(fmt.Errorf("invalid --output value %q, expected (json|yaml)", output))
			}
			data, err := readTemplateInput(cmd, file)
			if err != nil && errors.Is(err, context.Canceled) {
				return fail(err)
			} else if err != nil {
				return templateFailure(cmd, templateRun{file: file, convertInput: !errors.Is(err, fs.ErrNotExist)},
					fmt.Errorf("unable to open input: %q (%v)", cmp.Or(file, "-"), errors.Unwrap(err)))
			}
			name := file
			if name == "" || name == "-" {
				name = "<stdin>"
			}
			t, err := template.ConvertBasic(bytes.NewReader(data), name)
			if err != nil {
				return fail(fmt.Errorf("converting: %v", err))
			}
			return template.WriteBasic(cmd.OutOrStdout(), t, output)
		},
	}
	basic.Flags().StringVarP(&output, "output", "o", "json", "output format: json or yaml")
	cmd.AddCommand(basic)
	return cmd
}

// templateRegistryFlags are opm's registry flags, which olmcat maps onto its image options.
type templateRegistryFlags struct {
	useHTTP, skipTLSVerify, skipTLS, insecure bool
	platform                                  string
	registryTimeout                           time.Duration
	flags                                     *pflag.FlagSet
}

func (r *templateRegistryFlags) add(f *pflag.FlagSet) {
	r.flags = f
	// olmcat's own, as on every command that reads images.
	f.BoolVar(&r.insecure, "insecure", false, "allow plain HTTP and unverified TLS for image registries: --use-http and --skip-tls-verify")
	f.StringVar(&r.platform, "platform", indeximage.DefaultPlatform, "image to pull from a multi-arch bundle image, OS/ARCH[/VARIANT]")
	f.BoolVar(&r.useHTTP, "use-http", false, "use plain HTTP for container image registries while pulling bundles (always for localhost and loopback addresses)")
	f.BoolVar(&r.skipTLSVerify, "skip-tls-verify", false, "skip TLS certificate verification for container image registries while pulling bundles")
	f.BoolVar(&r.skipTLS, "skip-tls", false, "deprecated: use --use-http and --skip-tls-verify")
	_ = f.MarkHidden("skip-tls") // pflag's deprecation notice would go to standard output
	addRegistryTimeoutFlag(f, &r.registryTimeout)
}

func (r *templateRegistryFlags) options(stderr io.Writer) (indeximage.Options, error) {
	if r.flags.Changed("skip-tls") {
		if r.flags.Changed("use-http") || r.flags.Changed("skip-tls-verify") {
			return indeximage.Options{}, errors.New("invalid flag combination: cannot use --use-http or --skip-tls-verify with deprecated --skip-tls")
		}
		fmt.Fprintln(stderr, "olmcat: warning: --skip-tls is deprecated: use --use-http and --skip-tls-verify")
	}
	return indeximage.Options{Platform: r.platform, Insecure: r.insecure, UseHTTP: r.useHTTP || r.skipTLS, SkipTLSVerify: r.skipTLSVerify, RegistryTimeout: r.registryTimeout}, nil
}

// readTemplateInput reads FILE, or standard input for "" and "-", as a catalog's blob is read: at
// most fbc.BlobLimit bytes of text, and a pipe or a FIFO gives way to a signal.
func readTemplateInput(cmd *cobra.Command, file string) ([]byte, error) {
	if file == "" {
		file = "-"
	}
	data, err := source.ReadInput(cmd.Context(), file, cmd.InOrStdin(), int64(fbc.BlobLimit()))
	if err != nil {
		return nil, fmt.Errorf("unable to open %q: %w", file, err)
	}
	return data, nil
}

// templateRun is what a failed render-template or convert-template was asked to do, for the line
// that says what to do about it.
type templateRun struct {
	file, typ   string // FILE ("" or "-": standard input) and TYPE ("": from the schema)
	data        []byte // the template as read, nil when it could not be
	bundlesFrom []string
	// convertInput: convert-template could not read its FBC file.
	convertInput bool
	typoOf       string // the TYPE a misspelled TYPE probably is
}

// templateFailure reports a failed render-template or convert-template as opm does, "Error: " and
// its message on stderr and exit code 1, then says on an olmcat: line what to do (where opm prints
// its whole usage text).
func templateFailure(cmd *cobra.Command, run templateRun, err error) error {
	if cmd.Context().Err() != nil && errors.Is(err, context.Canceled) {
		return err // stopped by a signal, which the command line says
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "Error: %s\n", textsafe.TerminalLines(err.Error()))
	fmt.Fprintf(stderr, "olmcat: %s; nothing was written\n", templateHint(cmd, run, err))
	return exitError{code: exitFindings}
}

// templateHint says what to do about a failed render-template or convert-template.
func templateHint(cmd *cobra.Command, run templateRun, err error) string {
	what := run.file
	if what == "" || what == "-" {
		what = "the template on standard input"
	}
	var (
		img    *template.ImageError
		entry  *template.BundleEntryError
		input  *source.Error
		parse  *template.ParseError
		render *template.RenderError
	)
	msg := err.Error()
	if run.typoOf != "" {
		return fmt.Sprintf("TYPE %q is probably %s misspelled: give TYPE %s, or leave TYPE out to take it from the template's schema", run.typ, run.typoOf, run.typoOf)
	}
	if run.convertInput {
		return fmt.Sprintf("convert-template basic reads one FBC file or stream (JSON or YAML); for a whole catalog (a directory, an index.db, an index image) 'olmcat migrate CATALOG OUT --to basic-template' writes a template per package")
	}
	if errors.As(err, &input) && slices.Contains(run.bundlesFrom, input.Ref) {
		return fmt.Sprintf("--bundles-from %s cannot be read: name a catalog that exists and can be read (an FBC directory or file, an index.db, an index image), or leave it out to pull the bundles it would give", input.Ref)
	}
	switch {
	case errors.As(err, &img):
		// In the words of every command that reads the template as a catalog reference.
		return source.UnreadImages(cmp.Or(run.file, "-"), template.AllImageErrors(err), err).Error()
	case errors.As(err, &entry):
		return fmt.Sprintf("%s: %s", what, entry.Advice())
	}
	if run.typ != "" && (errors.As(err, &parse) || errors.As(err, &render)) {
		if schema, derr := template.DetectSchema(run.data); derr == nil && schema != template.SchemaOfType(run.typ) {
			if typ := template.TypeOfSchema(schema); typ != "" {
				return fmt.Sprintf("%s has the schema %s, which is TYPE %s, not %s: give TYPE %s, or leave TYPE out to take it from the schema", what, schema, typ, run.typ, typ)
			}
		}
	}
	switch {
	case errors.As(err, &parse) && strings.HasPrefix(msg, "auto-detecting template type: decoding"):
		return fmt.Sprintf("%s is not valid YAML or JSON: fix it where the error says", what)
	case errors.As(err, &parse) && strings.HasPrefix(msg, "auto-detecting"):
		if said := misspelledTemplateSchema(what, run.data); said != "" {
			return said
		}
		return fmt.Sprintf("%s is not a catalog template: its first document needs 'schema: olm.template.basic', 'olm.semver' or 'olm.template.substitutes' (or give TYPE: basic, semver, substitutes)", what)
	case errors.As(err, &parse), errors.As(err, &render):
		return fmt.Sprintf("%s could not be rendered: fix what the error names (a semver template's bundles need semantic versions; a substitutes template's entries must be a complete, valid FBC, as 'olmcat validate' checks)", what)
	}
	return fmt.Sprintf("'olmcat %s --help' shows the arguments and flags", strings.TrimPrefix(cmd.CommandPath(), "olmcat "))
}
