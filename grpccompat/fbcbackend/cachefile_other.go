//go:build !unix

package fbcbackend

import (
	"io/fs"
	"os"
	"path/filepath"
)

// openNoFollow, without openat: each component of rel is checked with Lstat before it is opened
// and compared with what was opened after (a swap in between is seen as a damaged cache).
func openNoFollow(base string, rel []string, lastIsDir bool) (*os.File, error) {
	path := base
	for i, name := range rel {
		path = filepath.Join(path, name)
		wantDir := i < len(rel)-1 || lastIsDir
		st, err := os.Lstat(path)
		if err != nil {
			return nil, err
		}
		if st.Mode()&fs.ModeSymlink != 0 || st.Mode().IsDir() != wantDir || (!wantDir && !st.Mode().IsRegular()) {
			return nil, notACacheFile(path, st.Mode(), wantDir)
		}
	}
	before, _ := os.Lstat(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(before, now) {
		f.Close()
		return nil, notACacheFile(path, fs.ModeSymlink, lastIsDir)
	}
	return f, nil
}
