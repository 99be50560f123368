package fbc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// StdinName is the Location.File of blobs read from standard input ("-").
const StdinName = "<stdin>"

// catalogTree is an opened catalog: a directory tree read through an fs.FS, or a single file. A
// tree opened from a path is read through an os.Root, so that nothing outside it is ever opened.
type catalogTree struct {
	fsys       fs.FS    // nil for a single file
	root       *os.Root // the os.Root behind fsys when the tree was opened from a path
	rootPath   string   // the path as given; "" for a caller's fs.FS
	singleFile bool
}

func openTree(rootPath string) (*catalogTree, *LoadError) {
	info, err := os.Stat(rootPath)
	if err != nil {
		return nil, &LoadError{Loc: Location{File: rootPath}, Err: &problem{kind: err,
			msg: fmt.Sprintf("cannot open the catalog: %v", err)}}
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return nil, locErr(Location{File: rootPath}, ErrNotRegularFile,
				"is neither a directory nor a regular file; give a catalog directory, a catalog file, or - for standard input")
		}
		return &catalogTree{rootPath: rootPath, singleFile: true}, nil
	}
	r, err := os.OpenRoot(rootPath)
	if err != nil {
		return nil, &LoadError{Loc: Location{File: rootPath}, Err: &problem{kind: err,
			msg: fmt.Sprintf("cannot open the catalog directory: %v", err)}}
	}
	return &catalogTree{fsys: r.FS(), root: r, rootPath: rootPath}, nil
}

func fsTree(fsys fs.FS) *catalogTree { return &catalogTree{fsys: fsys} }

func (t *catalogTree) Close() {
	if t.root != nil {
		_ = t.root.Close()
	}
}

// open opens one file named as files() named it.
func (t *catalogTree) open(name string) (io.ReadCloser, error) {
	if t.singleFile {
		return os.Open(t.rootPath)
	}
	return t.fsys.Open(name)
}

// files calls visit with the name of every catalog file, in sorted path order: every regular file
// of the tree except .indexignore files and what they exclude. Symbolic links to regular files are
// followed when they stay inside the catalog directory; links leading out of it, links to
// directories, broken links and special files are reported. Directories are never entered through
// links, so a link loop cannot make the walk run forever.
func (t *catalogTree) files(report func(*LoadError), visit func(name string) error) error {
	if t.singleFile {
		return visit(t.rootPath)
	}
	return t.walkDir(".", nil, report, visit)
}

func (t *catalogTree) walkDir(dir string, chain ignoreChain, report func(*LoadError), visit func(string) error) error {
	entries, err := t.readDir(dir)
	if err != nil {
		if dir != "." && chain.ignored(dir, true) {
			return nil
		}
		report(fileError(dir, err, "cannot read the directory"))
		return nil
	}
	for _, e := range entries {
		if e.Name() != indexIgnoreFile || e.IsDir() {
			continue
		}
		name := joinName(dir, e.Name())
		patterns, err := t.readIgnoreFile(name, dir)
		if err != nil {
			report(fileError(name, err, "cannot read the ignore file (its directory was skipped)"))
			return nil
		}
		chain = chain.with(ignoreSet{file: name, patterns: patterns})
	}
	for _, e := range entries {
		name := joinName(dir, e.Name())
		if e.IsDir() {
			if err := t.walkDir(name, chain, report, visit); err != nil {
				return err
			}
			continue
		}
		if e.Name() == indexIgnoreFile || chain.ignored(name, false) {
			continue
		}
		if lerr := t.checkFile(name, e.Type()); lerr != nil {
			report(lerr)
			continue
		}
		if err := visit(name); err != nil {
			return err
		}
	}
	return nil
}

func (t *catalogTree) readDir(dir string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(t.fsys, dir)
	if err != nil {
		return nil, err
	}
	// fs.ReadDirFS promises sorted entries, but the order of the walk must not depend on every
	// fs.FS keeping that promise.
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

func (t *catalogTree) readIgnoreFile(name, dir string) ([]ignorePattern, error) {
	f, err := t.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var domain []string
	if dir != "." {
		domain = strings.Split(dir, "/")
	}
	return parseIgnoreFile(f, domain)
}

// checkFile accepts regular files and links that lead to one inside the tree.
func (t *catalogTree) checkFile(name string, mode fs.FileMode) *LoadError {
	loc := Location{File: name}
	if mode&fs.ModeSymlink != 0 {
		info, err := fs.Stat(t.fsys, name)
		if err != nil {
			return t.brokenLink(name, err)
		}
		if info.IsDir() {
			return locErr(loc, ErrNotRegularFile,
				"is a symbolic link to a directory; the loader does not follow directory links (opm fails on them too): replace the link with a copy, or list it in a .indexignore file")
		}
		mode = info.Mode()
	}
	if !mode.IsRegular() {
		return locErr(loc, ErrNotRegularFile,
			"is not a regular file (%s); remove it from the catalog or list it in a .indexignore file", FileKind(mode))
	}
	return nil
}

// brokenLink explains why a symbolic link could not be followed.
func (t *catalogTree) brokenLink(name string, statErr error) *LoadError {
	if t.rootPath == "" {
		return t.brokenLinkFS(name, statErr)
	}
	loc := Location{File: name}
	target, _ := os.Readlink(filepath.Join(t.rootPath, filepath.FromSlash(name)))
	resolved, err := filepath.EvalSymlinks(filepath.Join(t.rootPath, filepath.FromSlash(name)))
	if err != nil {
		return &LoadError{Loc: loc, Err: &problem{kind: ErrNotRegularFile, cause: statErr,
			msg: fmt.Sprintf("is a broken symbolic link (to %q: %v); fix or remove it, or list it in a .indexignore file", target, rootCause(err))}}
	}
	rootResolved, _ := filepath.EvalSymlinks(t.rootPath)
	rel, relErr := filepath.Rel(rootResolved, resolved)
	if relErr != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &LoadError{Loc: loc, Err: &problem{kind: ErrNotRegularFile, cause: statErr,
			msg: fmt.Sprintf("is a symbolic link to %q, outside the catalog directory; the loader only follows links that stay inside the catalog: copy the file in, or list the link in a .indexignore file", target)}}
	}
	return fileError(name, statErr, "cannot follow the symbolic link")
}

// brokenLinkFS is brokenLink for a caller's fs.FS, which has no host path to resolve links with.
// Following links is the fs.FS's business; only a target that plainly leads out of it is told
// apart from a broken link.
func (t *catalogTree) brokenLinkFS(name string, statErr error) *LoadError {
	target, err := fs.ReadLink(t.fsys, name)
	if err != nil { // an fs.FS that cannot read links
		return &LoadError{Loc: Location{File: name}, Err: &problem{kind: ErrNotRegularFile, cause: statErr,
			msg: fmt.Sprintf("is a symbolic link that cannot be followed (%v); fix or remove it, or list it in a .indexignore file", rootCause(statErr))}}
	}
	if outsideFS(name, target) {
		return &LoadError{Loc: Location{File: name}, Err: &problem{kind: ErrNotRegularFile, cause: statErr,
			msg: fmt.Sprintf("is a symbolic link to %q, outside the catalog directory; the loader only follows links that stay inside the catalog: copy the file in, or list the link in a .indexignore file", target)}}
	}
	return &LoadError{Loc: Location{File: name}, Err: &problem{kind: ErrNotRegularFile, cause: statErr,
		msg: fmt.Sprintf("is a broken symbolic link (to %q: %v); fix or remove it, or list it in a .indexignore file", target, rootCause(statErr))}}
}

// outsideFS reports whether the target of the link name leads out of the file system by itself
// (absolute, or climbing above its root).
func outsideFS(name, target string) bool {
	if path.IsAbs(target) || filepath.IsAbs(target) {
		return true
	}
	p := path.Join(path.Dir(name), target)
	return p == ".." || strings.HasPrefix(p, "../")
}

func rootCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// FileKind says in words what a file that is not a regular file is, for messages that refuse it.
func FileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (mode " + mode.Type().String() + ")"
}

// fileError reports an I/O failure on a file or directory, with what to do about the usual causes.
func fileError(name string, err error, what string) *LoadError {
	hint := ""
	if errors.Is(err, fs.ErrPermission) {
		hint = "; check its permissions, or list it in a .indexignore file"
	}
	return &LoadError{Loc: Location{File: name}, Err: &problem{kind: err,
		msg: fmt.Sprintf("%s: %v%s", what, rootCause(err), hint)}}
}

func joinName(dir, name string) string {
	if dir == "." {
		return name
	}
	return path.Join(dir, name)
}
