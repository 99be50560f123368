package fbc

import (
	"bufio"
	"io"
	"path"
	"strings"
)

// indexIgnoreFile names the files that list, gitignore-style, which files of their directory tree
// are not part of the catalog. The files themselves are never read as catalog data.
const indexIgnoreFile = ".indexignore"

// ignorePattern is one line of an .indexignore file. Matching follows what opm does (gitignore
// patterns relative to the .indexignore's directory; the last matching pattern decides; a pattern
// matching a directory also matches everything below it, and a later "!" pattern can re-include a
// file below an ignored directory).
type ignorePattern struct {
	domain   []string // directory of the .indexignore, as path components under the catalog root
	parts    []string // the pattern split at "/"
	negate   bool     // "!pattern": re-include
	dirOnly  bool     // "pattern/": matches directories only
	anchored bool     // contained a "/" (other than a trailing one): matched from the domain down
}

// parseIgnoreFile reads the patterns of one .indexignore, in order. Blank lines and lines starting
// with "#" are skipped; surrounding whitespace is trimmed.
func parseIgnoreFile(r io.Reader, domain []string) ([]ignorePattern, error) {
	var out []ignorePattern
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if p, ok := parseIgnorePattern(line, domain); ok {
			out = append(out, p)
		}
	}
	return out, sc.Err()
}

func parseIgnorePattern(line string, domain []string) (ignorePattern, bool) {
	p := ignorePattern{domain: domain}
	if strings.HasPrefix(line, "!") {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false
	}
	p.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	p.parts = strings.Split(line, "/")
	return p, true
}

// match reports whether the pattern matches the path (components from the catalog root); isDir
// says whether the path itself is a directory.
func (p *ignorePattern) match(pathParts []string, isDir bool) bool {
	if len(pathParts) <= len(p.domain) {
		return false
	}
	for i, d := range p.domain {
		if pathParts[i] != d {
			return false
		}
	}
	rel := pathParts[len(p.domain):]
	if !p.anchored {
		for i, name := range rel {
			if ok, err := path.Match(p.parts[0], name); err == nil && ok {
				if p.dirOnly && i == len(rel)-1 && !isDir {
					continue
				}
				return true
			}
		}
		return false
	}
	return p.matchAnchored(rel, isDir)
}

// matchAnchored matches the pattern against a leading run of rel's components ("**" standing for
// any number of them); matching a leading run means matching a directory that holds the path.
func (p *ignorePattern) matchAnchored(rel []string, isDir bool) bool {
	width := len(rel) + 1
	tried := make([]bool, (len(p.parts)+1)*width)
	var try func(pi, ri int) bool
	try = func(pi, ri int) bool {
		if tried[pi*width+ri] {
			return false
		}
		tried[pi*width+ri] = true
		if pi == len(p.parts) {
			return ri > 0 && (ri < len(rel) || isDir || !p.dirOnly)
		}
		if p.parts[pi] == "**" {
			if pi == len(p.parts)-1 {
				return ri < len(rel) // everything below
			}
			for k := ri; k <= len(rel); k++ {
				if try(pi+1, k) {
					return true
				}
			}
			return false
		}
		if ri >= len(rel) {
			return false
		}
		ok, err := path.Match(p.parts[pi], rel[ri])
		return err == nil && ok && try(pi+1, ri+1)
	}
	return try(0, 0)
}

// ignoreSet is one .indexignore's patterns with the path of the file they came from.
type ignoreSet struct {
	file     string // e.g. "a/b/.indexignore"
	patterns []ignorePattern
}

// ignoreChain holds the pattern sets of a directory and its ancestors, ordered as opm orders them:
// by the walk order of the .indexignore files (sorted path order, parents before their contents).
type ignoreChain []ignoreSet

// with returns the chain plus one more set, leaving the receiver untouched.
func (c ignoreChain) with(s ignoreSet) ignoreChain {
	out := make(ignoreChain, 0, len(c)+1)
	i := 0
	for i < len(c) && comparePaths(c[i].file, s.file) < 0 {
		i++
	}
	out = append(out, c[:i]...)
	out = append(out, s)
	return append(out, c[i:]...)
}

// ignored reports whether the last pattern matching the path excludes it.
func (c ignoreChain) ignored(name string, isDir bool) bool {
	if len(c) == 0 {
		return false
	}
	parts := strings.Split(name, "/")
	for i := len(c) - 1; i >= 0; i-- {
		ps := c[i].patterns
		for j := len(ps) - 1; j >= 0; j-- {
			if ps[j].match(parts, isDir) {
				return !ps[j].negate
			}
		}
	}
	return false
}

// comparePaths orders slash-separated paths the way a sorted depth-first walk meets them.
func comparePaths(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}
