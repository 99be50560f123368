package filetree

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// WriteTo writes the tree into dir, which must exist and be empty: directories 0755, files 0644,
// links as relative links, hard links as copies. It is for the few readers that need a real
// directory (a bundle's manifests); catalogs are read through the tree itself.
func (t *Tree) WriteTo(dir string) error {
	names := make([]string, 0, len(t.nodes))
	for name := range t.nodes {
		if name != "." {
			names = append(names, name)
		}
	}
	sort.Strings(names) // parents before children
	for _, name := range names {
		n := t.nodes[name]
		dst := filepath.Join(dir, filepath.FromSlash(name))
		var err error
		switch n.kind {
		case dirNode:
			err = os.Mkdir(dst, 0o755)
		case linkNode:
			err = os.Symlink(filepath.FromSlash(relative(parent(name), n.target)), dst)
		case fileNode:
			err = t.copyOut(n, dst)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", dst, err)
		}
	}
	return nil
}

func (t *Tree) copyOut(n *node, dst string) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.NewSectionReader(t.pack, n.off, n.size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
