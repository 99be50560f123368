package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/sqlite"
)

// Form is how a reference names a catalog.
type Form string

// The reference forms. Every command that reads a catalog accepts the catalog forms; compat also
// accepts FormServer and FormRecording.
const (
	FormDir           Form = "directory"
	FormFile          Form = "file"
	FormStdin         Form = "standard input"
	FormIndexDB       Form = "index.db"
	FormOCILayout     Form = "oci-layout image"
	FormDockerArchive Form = "docker-archive image"
	FormRegistry      Form = "registry image"
	FormGit           Form = "git revision"
	FormServer        Form = "gRPC server"
	FormRecording     Form = "recorded answers"
)

// GitPrefix starts a reference to a catalog path at a git revision: git:REV:PATH.
const GitPrefix = "git:"

// Ref is a parsed reference: what it names and where that is.
type Ref struct {
	Raw  string // as the user gave it
	Form Form
	// Path is the local file or directory: the catalog for FormDir, FormFile and FormIndexDB, the
	// layout or archive for local images, the path in the work tree for FormGit, the recording
	// directory for FormRecording; empty otherwise.
	Path string
	// Rev is the git revision of FormGit.
	Rev string
}

// IsImage reports whether the reference names an image.
func (r Ref) IsImage() bool {
	return r.Form == FormOCILayout || r.Form == FormDockerArchive || r.Form == FormRegistry
}

// Same reports whether r and o name the same catalog, so that one opened source can serve both:
// the same form and revision, and the same local path (however spelled) or, for images, the same
// reference. Standard input is never the same as anything: it can be read only once.
func (r Ref) Same(o Ref) bool {
	if r.Form != o.Form || r.Rev != o.Rev || r.Form == FormStdin {
		return false
	}
	switch r.Form {
	case FormDir, FormFile, FormIndexDB, FormGit:
		return cleanPath(r.Path) == cleanPath(o.Path)
	}
	return r.Raw == o.Raw
}

func cleanPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// hostPort is a bare HOST:PORT, as grpcurl users type a server address.
var hostPort = regexp.MustCompile(`^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*):[0-9]{1,5}$`)

// Parse tells what a reference names, looking at the file system but reading no catalog: "-" is
// standard input; grpc://, grpcs:// and a bare HOST:PORT that is not a file are servers; git:REV:PATH
// is a path at a git revision; oci-layout:, docker-archive: and registry references are images; an
// existing directory is a catalog directory (or recorded answers, when it holds plan.json and
// answers); an existing file is an index.db when it starts with the SQLite header, else an FBC
// file. Anything else is a NotFound error.
func Parse(raw string) (Ref, error) {
	ref := Ref{Raw: raw}
	switch {
	case raw == "":
		return ref, notFound(raw, "empty reference")
	case raw == "-":
		ref.Form = FormStdin
		return ref, nil
	case strings.HasPrefix(raw, "grpc://"), strings.HasPrefix(raw, "grpcs://"):
		ref.Form = FormServer
		return ref, nil
	case strings.HasPrefix(raw, GitPrefix):
		return parseGit(raw)
	case strings.HasPrefix(raw, indeximage.OCILayoutPrefix), strings.HasPrefix(raw, indeximage.DockerArchivePrefix):
		return parseLocalImage(raw)
	}
	fi, err := os.Stat(raw)
	if err != nil {
		if _, lerr := os.Lstat(raw); lerr == nil {
			return ref, &Error{Ref: raw, Problem: NotFound, Detail: "a symbolic link to nothing", Hint: "fix or remove the link", Err: err}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return ref, &Error{Ref: raw, Problem: Unreadable, Detail: err.Error(), Err: err}
		}
		switch {
		case hostPort.MatchString(raw):
			ref.Form = FormServer
			return ref, nil
		case indeximage.IsImageRef(raw):
			ref.Form = FormRegistry
			return ref, nil
		}
		return ref, notFound(raw, "no such file or directory, and not an image reference")
	}
	ref.Path = raw
	switch {
	case fi.IsDir():
		ref.Form = FormDir
		if isRecording(raw) {
			ref.Form = FormRecording
		}
	case fi.Mode().IsRegular():
		ref.Form = FormFile
		isDB, err := sqlite.IsSQLiteFile(raw)
		if err != nil {
			return ref, classify(raw, err)
		}
		if isDB {
			ref.Form = FormIndexDB
		}
	default:
		// Pipes (<(cmd) in a shell) and devices are read as a stream, like standard input.
		ref.Form = FormFile
	}
	return ref, nil
}

// isRecording reports whether dir holds a recorded answer set (plan.json and answers), as the
// conformance corpus stores what a server answered.
func isRecording(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "plan.json")); err != nil {
		return false
	}
	for _, name := range []string{"answers.json.gz", "0001.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

func parseLocalImage(raw string) (Ref, error) {
	ref := Ref{Raw: raw, Form: FormOCILayout}
	if strings.HasPrefix(raw, indeximage.DockerArchivePrefix) {
		ref.Form = FormDockerArchive
	}
	path, ok := indeximage.LocalImagePath(raw)
	if !ok || path == "" {
		return ref, &Error{Ref: raw, Problem: BadImage, Detail: "the reference does not parse",
			Hint: "write oci-layout:DIR[:TAG|@DIGEST] or docker-archive:FILE[:REPO:TAG]"}
	}
	if _, err := os.Stat(path); err != nil {
		return ref, notFound(raw, path+": no such file or directory")
	}
	ref.Path = path
	return ref, nil
}

// parseGit splits git:REV:PATH. The revision is checked when the reference is opened.
func parseGit(raw string) (Ref, error) {
	ref := Ref{Raw: raw, Form: FormGit}
	rev, path, ok := strings.Cut(strings.TrimPrefix(raw, GitPrefix), ":")
	if !ok || rev == "" || path == "" {
		return ref, &Error{Ref: raw, Problem: BadGitRevision, Detail: "expected git:REV:PATH",
			Hint: "e.g. git:origin/main:catalogs/ for catalogs/ as it is on origin/main"}
	}
	ref.Rev, ref.Path = rev, path
	return ref, nil
}
