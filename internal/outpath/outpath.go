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
// directory; so are two names that differ only in Unicode normalization ("é" as U+00E9 and as
// "e" + U+0301), which macOS's file systems (APFS, HFS+) take for one name. Names a writer
// reserves for its own files (catalog.json beside the package directories) are refused as names.
package outpath

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
	seen map[string]string // key of the name -> the name that took it
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
	n.seen[sameFileKey(key)] = name
}

// Join returns dir/name for the catalog name name of the given kind (Package, Bundle), where says
// which file (and line) carries it. The error is a *NameError.
func (n *Names) Join(dir, kind, name, where string) (string, error) {
	if reason := Check(name); reason != "" {
		return "", &NameError{Kind: kind, Name: name, Where: where, Reason: reason}
	}
	if other, ok := n.seen[sameFileKey(name)]; ok {
		return "", &NameError{Kind: kind, Name: name, Where: where, Reason: collision(name, other), Other: other}
	}
	n.take(name, name)
	return filepath.Join(dir, name), nil
}

// Join is Names.Join for a single name, with nothing to collide with.
func Join(dir, kind, name, where string) (string, error) {
	var n Names
	return n.Join(dir, kind, name, where)
}

// sameFileKey is the same string for two names that a case-insensitive file system, or one that
// normalizes Unicode, takes for one name: canonical decomposition (NFD, under which NFC and NFD
// spellings are equal), case folding, then NFD again, since folding can turn a character into
// one that decomposes or a combining mark that must be reordered.
func sameFileKey(name string) string {
	return norm.NFD.String(fold(norm.NFD.String(name)))
}

// collision says why name would be the same file as other, a name taken before it. Names that
// differ beyond ASCII are spelled out too, since they may print alike.
func collision(name, other string) string {
	reason := fmt.Sprintf("it would be the same file as %q", other)
	if name == other {
		return reason
	}
	switch {
	case norm.NFD.String(name) == norm.NFD.String(other):
		reason += " on a file system that normalizes Unicode, as macOS's do"
	case fold(name) == fold(other):
		reason += " on a case-insensitive file system"
	default:
		reason += " on a case-insensitive file system that normalizes Unicode, as macOS's do"
	}
	if !isASCII(name) || !isASCII(other) {
		reason += fmt.Sprintf(" (%+q and %+q are one name there)", other, name)
	}
	return reason
}

func isASCII(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) < 0
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
