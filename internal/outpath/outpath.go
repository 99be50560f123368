// Package outpath is the one place where a name read from a catalog (a package, a bundle, any
// name an untrusted catalog chooses) becomes part of an output path: the way package source is
// the one door in, this is the one way a catalog's names reach the file system. A name is used
// as one path component exactly as it is, or refused: never cleaned, escaped or shortened, since
// a cleaned name is another name, and two names that clean to the same one would overwrite each
// other.
//
// Refused: the empty name, "." and "..", a name holding a path separator ('/' or '\', the latter
// a separator where the output may be copied to), NUL or another control character, and a name
// longer than a file name may be. Two names that differ only in case are refused too, since on a
// case-insensitive file system (macOS, Windows, a volume mounted into a container) they are one
// directory, and names a writer reserves for its own files (catalog.json beside the package
// directories) are refused as names.
package outpath

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Kinds of names, for messages.
const (
	Package = "package"
	Bundle  = "bundle"
)

// maxName is the longest name accepted: file systems take 255 bytes (NAME_MAX), and writers add
// extensions (<package>.yaml, <package>.json).
const maxName = 240

// NameError is a catalog name that cannot be a path component of the output.
type NameError struct {
	Kind, Name string
	Where      string // the file (and line) of the blob that carries the name; "" when unknown
	Reason     string
	Other      string // the name it collides with, if that is the reason
}

func (e *NameError) Error() string {
	where := ""
	if e.Where != "" {
		where = " (" + e.Where + ")"
	}
	return fmt.Sprintf("%s %q%s cannot be a file name in the output: %s; nothing was written (rename the %s in the catalog)",
		e.Kind, e.Name, where, e.Reason, e.Kind)
}

// Check returns why name cannot be used as one path component as it is, or "" when it can.
func Check(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case name == "." || name == "..":
		return fmt.Sprintf("%q names a directory of the file system", name)
	case strings.ContainsAny(name, `/\`):
		return "it contains a path separator"
	case strings.ContainsRune(name, 0):
		return "it contains a NUL byte"
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "it contains a control character"
	case len(name) > maxName:
		return fmt.Sprintf("it is %d bytes long, more than the %d olmcat allows (file names take 255 bytes, and olmcat adds extensions)", len(name), maxName)
	case !filepath.IsLocal(name): // what the platform refuses besides (reserved names on Windows)
		return "it is not a plain file name on this system"
	}
	return ""
}

// Names joins the names of one output directory, refusing a name that cannot be a path component
// and two names that would be the same directory. The zero value is ready to use.
type Names struct {
	seen map[string]string // folded name -> the name that took it
}

// Reserve marks a file name the writer uses itself in this directory, so that no catalog name
// takes it.
func (n *Names) Reserve(file string) {
	n.take(file, file)
}

func (n *Names) take(key, name string) {
	if n.seen == nil {
		n.seen = map[string]string{}
	}
	n.seen[fold(key)] = name
}

// Join returns dir/name for the catalog name name of the given kind (Package, Bundle), where says
// which file (and line) carries it. The error is a *NameError.
func (n *Names) Join(dir, kind, name, where string) (string, error) {
	if reason := Check(name); reason != "" {
		return "", &NameError{Kind: kind, Name: name, Where: where, Reason: reason}
	}
	if other, ok := n.seen[fold(name)]; ok {
		reason := fmt.Sprintf("it would be the same file as %q", other)
		if other != name {
			reason += " on a case-insensitive file system"
		}
		return "", &NameError{Kind: kind, Name: name, Where: where, Reason: reason, Other: other}
	}
	n.take(name, name)
	return filepath.Join(dir, name), nil
}

// Join is Names.Join for a single name, with nothing to collide with.
func Join(dir, kind, name, where string) (string, error) {
	var n Names
	return n.Join(dir, kind, name, where)
}

// fold maps every rune to the least of its case-folding orbit, so that two names strings.EqualFold
// calls equal fold to the same key.
func fold(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, name)
}
