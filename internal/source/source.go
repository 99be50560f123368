// Package source is the one way into a catalog. Every command names its inputs with a reference
// (see Parse) and opens them here: an FBC directory or file, standard input, an unpacked directory
// (olm.bundle.object refs resolved as blobs are read), an index.db recognized by its content, an
// image (registry, oci-layout:, docker-archive:), or a path at a git revision. An opened Source
// gives the catalog as a blob stream, package by package or whole (the model), an api.Registry
// backend, and its raw files; every problem with an input is an *Error with one wording.
package source

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/filetree"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// Format is how the catalog is stored.
type Format string

const (
	FormatFBC    Format = "fbc"
	FormatSQLite Format = "sqlite"
)

// Options configure Open.
type Options struct {
	// Images configures how image references are read.
	Images indeximage.Options
	// MigrateLevel is how an index.db's bundles are converted (see tofbc.Options).
	MigrateLevel tofbc.MigrateLevel
	// AllowEmpty accepts a catalog in which no blob at all was found (by default an EmptyCatalog
	// error: a mistyped path, a directory of READMEs), and keeps quiet about a catalog that holds
	// no package (an index.db or an FBC emptied on purpose, accepted with a warning otherwise).
	AllowEmpty bool
	// Warn receives warnings about the input (nil: none are given), one sentence each, starting
	// with the reference.
	Warn func(string)
	// Stdin is read for "-"; nil means os.Stdin.
	Stdin io.Reader
	// Templates renders a catalog template given as a catalog reference (see TemplateSchema);
	// nil refuses templates.
	Templates TemplateRenderer
	// Bundles renders the bundle images a template names; nil means BundleImages(Images). Give
	// the same one to every source of a command, so that a bundle is pulled once.
	Bundles template.BundleRenderer
	// Opened, if set, is called with every source Open opens, before Open returns it: a command
	// that renders templates with --bundles-from lends the source of that same catalog to its
	// bundle renderer instead of opening it twice (see Ref.Same, Source.Closed).
	Opened func(*Source)
	// Progress, if set, is told as a walk goes how many more packages and bundles it has read (a
	// command's progress line); walks of several sources may call it at once.
	Progress func(packages, bundles int)
}

// Source is an opened catalog input. Close it to remove what opening it extracted.
type Source struct {
	ref    Ref
	format Format
	// path is the local catalog: a directory, an FBC file, an index.db (extracted for images and
	// git revisions, spooled for an index.db on standard input). Empty for an FBC stream.
	path    string
	files   *filetree.Tree // the FBC of an image, extracted into one file tree
	stream  *spool         // an FBC read from standard input, a pipe or a device
	image   *indeximage.Catalog
	db      *sqlite.DB
	opts    Options
	report  *tofbc.Report
	closers []func()
	closed  bool
	// template is the schema of the catalog template the stream was rendered from.
	template string
	// templateLocs locate the rendered stream's blobs in the template (nil: unknown).
	templateLocs *template.Locations
}

// Open parses ref and opens the catalog it names. Servers and recorded answers are not catalogs:
// they are a NotHere error (compat opens them itself, see Parse).
func Open(ctx context.Context, ref string, opts Options) (*Source, error) {
	r, err := Parse(ref)
	if err != nil {
		return nil, err
	}
	return OpenRef(ctx, r, opts)
}

// OpenRef opens a parsed reference.
func OpenRef(ctx context.Context, r Ref, opts Options) (*Source, error) {
	s := &Source{ref: r, opts: opts}
	if err := s.open(ctx); err != nil {
		s.Close()
		return nil, err
	}
	remember(s.InputPaths())
	if opts.Opened != nil {
		opts.Opened(s)
	}
	return s, nil
}

func (s *Source) open(ctx context.Context) error {
	r := s.ref
	switch r.Form {
	case FormServer:
		return &Error{Ref: r.Raw, Problem: NotHere, Detail: "a live gRPC server is not a catalog",
			Hint: "only olmcat compat reads a server; give a catalog here"}
	case FormRecording:
		return &Error{Ref: r.Raw, Problem: NotHere, Detail: "a recorded answer set is not a catalog",
			Hint: "only olmcat compat reads recorded answers; give a catalog here"}
	case FormStdin:
		return s.openStream(ctx, s.stdin())
	case FormOCILayout, FormDockerArchive, FormRegistry:
		return s.openImage(ctx)
	case FormGit:
		return s.openGit(ctx)
	}
	return s.openLocal(ctx, r.Path)
}

func (s *Source) stdin() io.Reader {
	if s.opts.Stdin != nil {
		return s.opts.Stdin
	}
	return os.Stdin
}

// openLocal opens a catalog on disk: a directory, an index.db, an FBC file, or a pipe.
func (s *Source) openLocal(ctx context.Context, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return classify(s.ref.Raw, err)
	}
	switch {
	case fi.IsDir():
		s.format, s.path = FormatFBC, path
		if err := s.refuseTemplateDir(ctx); err != nil {
			return err
		}
		return s.checkNotEmpty(ctx)
	case !fi.Mode().IsRegular():
		f, err := openSpecial(ctx, path)
		if err != nil {
			return classify(s.ref.Raw, err)
		}
		defer f.Close()
		return s.openStream(ctx, f)
	}
	isDB, err := sqlite.IsSQLiteFile(path)
	if err != nil {
		return classify(s.ref.Raw, err)
	}
	if isDB {
		return s.openIndexDB(path)
	}
	if err := s.checkText(path); err != nil {
		return err
	}
	if isTemplate, err := s.openIfTemplate(ctx, path); isTemplate || err != nil {
		return err
	}
	s.format, s.path = FormatFBC, path
	return s.checkNotEmpty(ctx)
}

// checkText refuses a file that cannot be an FBC: binary content, or a name that promises an
// index.db (a text file called index.db is a mistake worth naming, not a YAML parse error).
func (s *Source) checkText(path string) error {
	head := make([]byte, 512)
	f, err := os.Open(path)
	if err != nil {
		return classify(s.ref.Raw, err)
	}
	n, _ := io.ReadFull(f, head)
	f.Close()
	head = head[:n]
	ext := strings.ToLower(filepath.Ext(path))
	namedDB := ext == ".db" || ext == ".sqlite" || ext == ".sqlite3"
	if !namedDB && !isBinary(head) {
		return nil
	}
	_, err = sqlite.Open(path) // explains what the bytes look like
	e := classify(s.ref.Raw, err)
	if se, ok := e.(*Error); ok && namedDB {
		se.Hint = "a file named " + ext + " must be a SQLite index.db; if it is a File-Based Catalog, name it .json or .yaml"
	}
	return e
}

// isBinary reports whether the first bytes of a file cannot start an FBC: a NUL byte, or text
// that is not UTF-8.
func isBinary(head []byte) bool { return !sqlite.IsText(head) }

func (s *Source) openIndexDB(path string) error {
	db, err := sqlite.Open(path)
	if err != nil {
		return classify(s.ref.Raw, err)
	}
	s.format, s.path, s.db = FormatSQLite, path, db
	s.closers = append(s.closers, func() { db.Close() })
	return s.checkIndexNotEmpty(context.Background())
}

func (s *Source) openImage(ctx context.Context) error {
	img, err := indeximage.Fetch(ctx, s.ref.Raw, s.opts.Images)
	if err != nil {
		return imageError(s.ref.Raw, err)
	}
	s.image = img
	s.closers = append(s.closers, img.Cleanup)
	if img.Kind == indeximage.SQLite {
		return s.openIndexDB(img.Path)
	}
	s.format, s.files = FormatFBC, img.Files
	return s.checkNotEmpty(ctx)
}

// Ref is the reference the source was opened from.
func (s *Source) Ref() Ref { return s.ref }

// String names the source as the user did.
func (s *Source) String() string { return s.ref.Raw }

// Format is how the catalog is stored.
func (s *Source) Format() Format { return s.format }

// Path is the local catalog (an FBC directory or file, or an index.db), extracted for index.db
// images and git revisions; "" for an FBC read from a stream or an image (see FS).
func (s *Source) Path() string { return s.path }

// Image is the image an image reference was read from, nil for other forms.
func (s *Source) Image() *indeximage.Catalog { return s.image }

// DB is the open index.db of a SQLite source, nil for an FBC.
func (s *Source) DB() *sqlite.DB { return s.db }

// Departures is, after the catalog of an index.db has been read, where its conversion departed
// from opm migrate; nil before, and for an FBC.
func (s *Source) Departures() *tofbc.Report { return s.report }

// Close releases the source: the database, and whatever was extracted or spooled.
func (s *Source) Close() error {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
	s.closed = true
	return nil
}

// Closed reports whether Close was called: a source lent to another reader must not be read then.
func (s *Source) Closed() bool { return s.closed }

// checkIndexNotEmpty warns about an index.db without packages. It is a catalog all the same (a
// team may empty an index on purpose, and opm serves it), unlike a path where no catalog is found.
func (s *Source) checkIndexNotEmpty(ctx context.Context) error {
	if s.opts.AllowEmpty || s.opts.Warn == nil {
		return nil
	}
	var any int
	err := s.db.SQL().QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM package) OR EXISTS (SELECT 1 FROM channel_entry)`).Scan(&any)
	if err != nil {
		return classify(s.ref.Raw, err)
	}
	if any == 0 {
		s.warnNoPackage("index.db")
	}
	return nil
}

// warnNoPackage says that a recognized catalog holds no package.
func (s *Source) warnNoPackage(what string) {
	if s.opts.AllowEmpty || s.opts.Warn == nil {
		return
	}
	s.opts.Warn(s.ref.Raw + ": the " + what + " holds no package: it is read as an empty catalog (pass --allow-empty to say that is intended)")
}

// imageError words an image that cannot be read as an input error.
func imageError(ref string, err error) error {
	if IsInputError(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	detail := strings.TrimPrefix(err.Error(), ref+": ")
	return &Error{Ref: ref, Problem: BadImage, Detail: detail, Err: err}
}
