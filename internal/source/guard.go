package source

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// opened lists the input paths of every source this process opened, for the outputs that are
// written far from where the inputs are known (profiles, the termination log).
var opened struct {
	sync.Mutex
	paths []string
}

func remember(paths []string) {
	opened.Lock()
	opened.paths = append(opened.paths, paths...)
	opened.Unlock()
}

// OpenedInputs are the input paths of every source opened so far by this process.
func OpenedInputs() []string {
	opened.Lock()
	defer opened.Unlock()
	return append([]string(nil), opened.paths...)
}

// CheckScratch refuses dir, named what (TMPDIR), as a place for temporary files when it is
// an input or lies inside one: the files would change the input, and a catalog directory would
// read them as part of the catalog. A dir that contains an input is fine: temporary files get new
// names and never replace anything.
func CheckScratch(dir, what string, inputs ...*Source) error {
	o := realPath(dir)
	for _, in := range inputs {
		if in == nil {
			continue
		}
		for _, p := range in.InputPaths() {
			i := realPath(p)
			if o == i || within(o, i) || sameFile(dir, p) {
				return &Error{Ref: what + " " + dir, Problem: OutputIsInput, Detail: "temporary files would go inside the input " + p,
					Hint: "point " + what + " elsewhere; olmcat never writes into an input"}
			}
		}
	}
	return nil
}

// InputPaths are the local files and directories the source reads, which no output may touch:
// the catalog, or the layout or archive of a local image. Extracted copies (registry images, git
// revisions) and streams have none.
func (s *Source) InputPaths() []string {
	switch s.ref.Form {
	case FormDir, FormFile, FormIndexDB, FormOCILayout, FormDockerArchive:
		return []string{s.ref.Path}
	}
	return nil
}

// CheckOutput refuses an output that is an input, contains one or lies inside one, whatever
// --force says: --force lets olmcat replace an old output, never an input. Symbolic links are
// followed, so a link to the input is the input.
func CheckOutput(out string, inputs ...*Source) error {
	var paths []string
	for _, in := range inputs {
		if in != nil {
			paths = append(paths, in.InputPaths()...)
		}
	}
	return CheckOutputPaths(out, paths...)
}

// CheckOutputPaths is CheckOutput for inputs named by their paths.
func CheckOutputPaths(out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	o := realPath(out)
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		i := realPath(in)
		var detail string
		switch {
		case o == i || sameFile(out, in):
			detail = "it is the input " + in
		case within(o, i):
			detail = "it lies inside the input " + in
		case within(i, o):
			detail = "it contains the input " + in
		default:
			continue
		}
		return &Error{Ref: out, Problem: OutputIsInput, Detail: detail,
			Hint: "write the output elsewhere; --force never lets olmcat overwrite an input"}
	}
	return nil
}

// realPath is the absolute path with the symbolic links of its longest existing prefix resolved.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
