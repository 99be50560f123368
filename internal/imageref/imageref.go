// Package imageref tells whether a string from a catalog (a bundle's image, a related image) is an
// image reference: one line of the grammar of go-containerregistry's name.ParseReference
// ([REGISTRY/]REPOSITORY[:TAG][@ALGORITHM:HEX]), with its digest checked as the OCI image spec
// registers digests (sha256, sha384 or sha512 and lowercase hex of the algorithm's length). An image
// that is not one must never reach an output a line at a time: a line end in it would add a line
// (an image to mirror) to an image list, an escape sequence would rewrite a terminal.
package imageref

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/olmcat/olmcat/internal/textsafe"
)

// localPrefixes are the local image references olmcat reads (indeximage.OCILayoutPrefix and
// DockerArchivePrefix; package indeximage is not imported for two constants).
var localPrefixes = []string{"oci-layout:", "docker-archive:"}

// digestHexLength is the length of the hex of each digest algorithm an image may be pinned by.
var digestHexLength = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// Problem returns why ref is not an image reference, in words that never repeat ref (the caller
// quotes it), or "" when it is one. An empty ref is not one; where an empty image is allowed
// (a bundle kept as objects, an unset related image), the caller does not ask.
func Problem(ref string) string {
	if ref == "" {
		return "it is empty"
	}
	// A local image olmcat read a bundle from (bundle render, add: the reference as given becomes
	// the image, as opm writes it) is a path: white space inside it is allowed, not around it.
	local := false
	for _, prefix := range localPrefixes {
		if path, ok := strings.CutPrefix(ref, prefix); ok {
			switch {
			case strings.TrimSpace(path) == "":
				return "it names no path after " + prefix
			case strings.TrimSpace(path) != path:
				return "it holds white space around its path"
			}
			local = true
		}
	}
	for _, r := range ref {
		switch {
		case r == '\n' || r == '\r':
			return "it holds a line end"
		case unicode.IsControl(r):
			return fmt.Sprintf("it holds the control character %U", r)
		case unicode.IsSpace(r) && (!local || r != ' '):
			return "it holds white space"
		case !unicode.IsPrint(r) && r != ' ':
			return fmt.Sprintf("it holds the unprintable character %U", r)
		}
	}
	if local {
		return ""
	}
	if _, dig, ok := strings.Cut(ref, "@"); ok {
		alg, hex, _ := strings.Cut(dig, ":")
		want, known := digestHexLength[alg]
		switch {
		case !known:
			return fmt.Sprintf("its digest is not ALGORITHM:HEX with ALGORITHM sha256, sha384 or sha512 (%s)", cut(dig))
		case len(hex) != want || strings.Trim(hex, "0123456789abcdef") != "":
			return fmt.Sprintf("its %s digest is not %d lowercase hex digits", alg, want)
		}
	}
	if _, err := name.ParseReference(ref); err != nil {
		return "it is not of the form [REGISTRY/]REPOSITORY[:TAG][@DIGEST] (" + reason(err, ref) + ")"
	}
	return ""
}

// reason is go-containerregistry's words for err, without the part of ref it ends with.
func reason(err error, ref string) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i > 0 && strings.Contains(ref, msg[i+2:]) {
		msg = msg[:i]
	}
	return cut(msg)
}

// cut is s Go-quoted without the quotes, cut as textsafe.QuoteCut cuts it.
func cut(s string) string {
	q := textsafe.QuoteCut(s)
	return q[1:strings.LastIndexByte(q, '"')]
}

// Quote is ref as a message quotes it: textsafe.QuoteCut (every control character escaped, at
// most textsafe.MaxQuoted bytes of it).
func Quote(ref string) string { return textsafe.QuoteCut(ref) }
