package source

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/internal/scratch"
)

// openGit extracts PATH as it was at REV (git archive, into a temporary directory) and opens it
// like a local path: a directory, a file or an index.db. PATH reads as in a checkout of REV: the
// symbolic links on its way and inside it are those of the revision, and what they lead to is
// extracted too. A path that did not exist at the revision is an empty catalog with AllowEmpty (a
// diff then shows everything as new), else NotFound.
func (s *Source) openGit(ctx context.Context) error {
	raw, rev := s.ref.Raw, s.ref.Rev
	abs, err := filepath.Abs(s.ref.Path)
	if err != nil {
		return err
	}
	top, err := workTree(ctx, abs)
	if err != nil {
		return &Error{Ref: raw, Problem: BadGitRevision, Detail: fmt.Sprintf("%s is not inside a git work tree: %v", s.ref.Path, err),
			Hint: "run olmcat inside the repository, or give the catalog path in it"}
	}
	commit, err := git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return &Error{Ref: raw, Problem: BadGitRevision, Detail: fmt.Sprintf("revision %q does not exist in %s", rev, top),
			Hint: "fetch it first, e.g. git fetch origin"}
	}
	commit = strings.TrimSpace(commit)
	rel, err := inRepo(top, abs)
	if err != nil {
		return &Error{Ref: raw, Problem: BadGitRevision, Detail: err.Error()}
	}
	tmp, remove, err := scratch.MkdirTemp("", "olmcat-git-")
	if err != nil {
		return err
	}
	s.closers = append(s.closers, func() { remove() })
	found, err := gitTree{ctx: ctx, top: top, commit: commit}.extractTree(tmp, rel)
	if err != nil {
		return &Error{Ref: raw, Problem: BadGitRevision, Detail: fmt.Sprintf("extract %s at %s: %v", rel, rev, err), Err: err}
	}
	if !found {
		if s.opts.AllowEmpty {
			s.format, s.stream = FormatFBC, &spool{}
			return nil
		}
		return &Error{Ref: raw, Problem: NotFound, Detail: fmt.Sprintf("%s did not exist at %s", rel, rev),
			Hint: "check the path and the revision"}
	}
	return s.openLocal(ctx, filepath.Join(tmp, filepath.FromSlash(rel)))
}

// workTree finds the top of the work tree holding p, starting from p's nearest existing directory
// (the path may have been deleted in the work tree since the revision).
func workTree(ctx context.Context, p string) (string, error) {
	dir := p
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no existing directory")
		}
		dir = parent
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	return strings.TrimSpace(top), err
}

// inRepo returns target relative to the work tree top as written, leaving the symbolic links inside
// the repository for the revision to resolve: the shallowest ancestor of target that is the top
// (through links outside the repository, such as a linked home directory) starts it. A target that
// reaches the repository only through a link is resolved in the work tree instead.
func inRepo(top, target string) (string, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", err
	}
	var ancestors []string
	for p := target; ; p = filepath.Dir(p) {
		ancestors = append(ancestors, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i := len(ancestors) - 1; i >= 0; i-- {
		if r, err := filepath.EvalSymlinks(ancestors[i]); err == nil && r == realTop {
			rel, err := filepath.Rel(ancestors[i], target)
			return filepath.ToSlash(rel), err
		}
	}
	return relativeTo(top, target)
}

// relativeTo returns target relative to the work tree top, with forward slashes ("." for top).
func relativeTo(top, target string) (string, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", err
	}
	realTarget := target
	if r, err := filepath.EvalSymlinks(target); err == nil {
		realTarget = r
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(target)); err == nil {
		realTarget = filepath.Join(r, filepath.Base(target))
	}
	rel, err := filepath.Rel(realTop, realTarget)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the git work tree %s", target, top)
	}
	return filepath.ToSlash(rel), nil
}

// git runs the git CLI in dir and returns its output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", gitError(err, &stderr)
	}
	return stdout.String(), nil
}

// extractArchive streams `git archive` output into dir. git holds a blob whole unless it is larger
// than core.bigFileThreshold (512 MiB by default), which it streams: a catalog file of one 160 MiB
// line took git 269 MB (issue 35 item 1), 6 MB streamed.
func extractArchive(ctx context.Context, top, dir string, args []string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.bigFileThreshold=1m"}, args...)...)
	cmd.Dir = top
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return gitError(err, &stderr)
	}
	untarErr := untar(pipe, dir)
	if untarErr != nil {
		_, _ = io.Copy(io.Discard, pipe) // let git finish writing before Wait closes the pipe
	}
	if err := cmd.Wait(); err != nil {
		return gitError(err, &stderr)
	}
	return untarErr
}

func gitError(err error, stderr *bytes.Buffer) error {
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("git is not installed or not on PATH")
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return errors.New(msg)
	}
	return err
}

// untar writes the directories, regular files and symbolic links of a tar stream under dir, so
// that the revision reads exactly as the same tree checked out (the catalog loader then follows
// the links that stay inside the catalog, as it does in a work tree). Writing through an os.Root,
// no entry can land outside dir, even through a link. Entries already there, from an earlier
// extraction of the same commit, are kept.
func untar(r io.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("archive entry %q leaves the extraction directory", h.Name)
		}
		if h.Typeflag != tar.TypeDir {
			if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
				return err
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeSymlink:
			if _, lerr := root.Lstat(name); lerr == nil {
				continue
			}
			err = root.Symlink(h.Linkname, name)
		case tar.TypeReg:
			var f *os.File
			f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err == nil {
				_, err = io.Copy(f, tr)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
		}
		if err != nil {
			return err
		}
	}
}
