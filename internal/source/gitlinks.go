package source

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// maxLinkHops bounds the symbolic links followed for one path, as the kernel's ELOOP does.
const maxLinkHops = 40

// gitTree reads one commit of the repository whose work tree is top.
type gitTree struct {
	ctx         context.Context
	top, commit string
}

// lookup returns the mode and object of the entry at p ("" when the commit has none).
func (g gitTree) lookup(p string) (mode, object string, err error) {
	out, err := git(g.ctx, g.top, "--literal-pathspecs", "ls-tree", "-z", g.commit, "--", p)
	if err != nil {
		return "", "", err
	}
	for _, rec := range strings.Split(out, "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && name == p && len(f) == 3 {
			return f[0], f[2], nil
		}
	}
	return "", "", nil
}

// resolve follows the symbolic links of p as a checkout of the commit would, component by
// component. It returns the path p leads to within the repository (found says whether the commit
// has it) and adds every link met to links. A link out of the repository ends the walk.
func (g gitTree) resolve(p string, links map[string]bool) (resolved string, found bool, err error) {
	rest := strings.Split(p, "/")
	cur, hops := "", 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		if part == "" || part == "." {
			continue
		}
		next := path.Join(cur, part)
		mode, object, err := g.lookup(next)
		if err != nil || mode == "" {
			return path.Join(append([]string{next}, rest...)...), false, err
		}
		if mode != "120000" {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", false, fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		links[next] = true
		target, err := git(g.ctx, g.top, "cat-file", "blob", object)
		if err != nil {
			return "", false, err
		}
		joined := path.Join(path.Dir(next), target)
		if path.IsAbs(target) || joined == ".." || strings.HasPrefix(joined, "../") {
			return "", false, nil
		}
		rest = append(strings.Split(joined, "/"), rest...)
		cur = ""
	}
	if cur == "" {
		cur = "."
	}
	return cur, true, nil
}

// extractTree extracts rel at the commit under dir so that it reads as in a checkout: with the links
// on its way and, round after round, whatever the links inside it lead to elsewhere in the
// repository (a catalog file linked from a shared directory, a link to a link). It reports whether
// the commit has rel at all.
func (g gitTree) extractTree(dir, rel string) (bool, error) {
	links := map[string]bool{}
	target, found, err := g.resolve(rel, links)
	if err != nil || !found {
		return false, err
	}
	var done []string
	want := append(sortedKeys(links), target)
	for round := 0; len(want) > 0; round++ {
		if round > maxLinkHops {
			return true, fmt.Errorf("%s: too many levels of symbolic links", rel)
		}
		args := append([]string{"--literal-pathspecs", "archive", "--format=tar", g.commit, "--"}, want...)
		if err := extractArchive(g.ctx, g.top, dir, args); err != nil {
			return true, err
		}
		done = append(done, want...)
		next := map[string]bool{}
		for _, p := range want {
			if err := g.linksOutOf(dir, p, done, next); err != nil {
				return true, err
			}
		}
		want = sortedKeys(next)
	}
	return true, nil
}

// linksOutOf adds to want the paths that the links under p (extracted in dir) lead to, with the
// links on their way, when no extracted path holds them yet.
func (g gitTree) linksOutOf(dir, p string, done []string, want map[string]bool) error {
	return filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(p)), func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		rel, err := filepath.Rel(dir, file)
		if err != nil {
			return err
		}
		target, err := os.Readlink(file)
		if err != nil || filepath.IsAbs(target) {
			return err
		}
		joined := path.Join(path.Dir(filepath.ToSlash(rel)), filepath.ToSlash(target))
		if joined == ".." || strings.HasPrefix(joined, "../") || under(joined, done) {
			return nil
		}
		links := map[string]bool{}
		resolved, found, err := g.resolve(joined, links)
		if err != nil {
			return err
		}
		for l := range links {
			if !under(l, done) {
				want[l] = true
			}
		}
		if found && !under(resolved, done) {
			want[resolved] = true
		}
		return nil
	})
}

// under reports whether p is one of the paths or inside one of them.
func under(p string, paths []string) bool {
	for _, d := range paths {
		if d == "." || p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
