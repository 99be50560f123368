package input

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// OpenGit loads the catalog at path (a directory or file inside a git work tree) as it was at the
// revision rev, by extracting that part of the tree into a temporary directory with `git archive`.
// A revision that does not exist is an error; a path that did not exist at the revision is an empty
// catalog (everything in the work tree is then new).
func OpenGit(ctx context.Context, rev, catalogPath string) (*diff.Side, error) {
	return (&opener{ctx: ctx}).openGit(rev, catalogPath)
}

func (o *opener) openGit(rev, catalogPath string) (*diff.Side, error) {
	ctx := o.ctx
	abs, err := filepath.Abs(catalogPath)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%s: %w", catalogPath, err)
	}
	dir := abs
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git work tree: %v", catalogPath, err)
	}
	top = strings.TrimSpace(top)
	commit, err := git(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("git revision %q does not exist in %s (fetch it first, e.g. git fetch origin)", rev, top)
	}
	commit = strings.TrimSpace(commit)
	rel, err := relativeTo(top, abs)
	if err != nil {
		return nil, err
	}
	source := rev + ":" + rel
	if _, err := git(ctx, top, "cat-file", "-e", commit+":"+rel); err != nil {
		return &diff.Side{Source: source + " (absent at " + rev + ")", Format: FormatFBC, Catalog: &fbc.Catalog{}}, nil
	}
	tmp, err := os.MkdirTemp("", "olmcat-diff-git-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	args := []string{"archive", "--format=tar", commit}
	if rel != "." {
		args = append(args, "--", rel)
	}
	if err := extractArchive(ctx, top, tmp, args); err != nil {
		return nil, fmt.Errorf("extract %s at %s: %v", rel, rev, err)
	}
	side, err := o.openPath(filepath.Join(tmp, filepath.FromSlash(rel)), source)
	if err != nil {
		return nil, err
	}
	side.Format = "git/" + side.Format
	return side, nil
}

// relativeTo returns target relative to the work tree top, with forward slashes ("." for top).
func relativeTo(top, target string) (string, error) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", err
	}
	realTarget, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", err
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

// extractArchive streams `git archive` output into dir.
func extractArchive(ctx context.Context, top, dir string, args []string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
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

// untar writes the regular files and directories of a tar stream under dir. Links and special files
// are skipped (a catalog is plain files), and no entry may leave dir.
func untar(r io.Reader, dir string) error {
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
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
