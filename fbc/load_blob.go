package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// Blob is one object of a catalog file, as read: its identifying fields and its whole JSON text.
type Blob struct {
	Schema  string
	Package string // the "package" field, "" when absent
	Name    string // the "name" field, "" when absent
	// Data is the object as JSON text (YAML documents are converted to JSON), owned by the
	// receiver. A receiver done with it may give it to bytepool.Put for the loader to reuse.
	Data json.RawMessage
	Loc  Location
	// InvalidUTF8Line, when not 0, is the line of the first bytes of the blob that were not UTF-8;
	// Data holds U+FFFD in their place, as encoding/json (and so opm) reads them.
	InvalidUTF8Line int

	span blobSpan // where the blob lies in its JSON file, for WalkPackages' second reading
}

// PackageName is the package the blob belongs to: the name of an olm.package blob, the package
// field of any other ("" for blobs of custom schemas that name no package).
func (b Blob) PackageName() string {
	if b.Schema == SchemaPackage {
		return b.Name
	}
	return b.Package
}

// newBlob checks one JSON value and picks out its schema, package and name. valid says the text is
// known to be valid JSON already (it came from the YAML converter).
func newBlob(data []byte, loc Location, validate bool) (Blob, *LoadError) {
	if validate && !jsonscan.Valid(data) {
		return Blob{}, syntaxError(data, loc)
	}
	invalidLine := 0
	if !utf8.Valid(data) {
		invalidLine = loc.Line + bytes.Count(data[:firstInvalidUTF8(data)], []byte("\n"))
		data = replaceInvalidUTF8(data)
	}
	first := firstNonSpace(data)
	if first < 0 || data[first] != '{' {
		return Blob{}, locErr(loc, ErrNotObject,
			"found %s where a blob (a JSON object with a \"schema\" field) was expected; if this file is not part of the catalog, list it in a .indexignore file",
			describeJSONValue(data, first))
	}
	bounds := scanHead(data[first:])
	var raw [3][]byte
	for i, r := range bounds {
		raw[i] = data[first+r[0] : first+r[1]]
	}
	b := Blob{Data: data, Loc: loc, InvalidUTF8Line: invalidLine}
	b.span.setHead(bounds, first, invalidLine != 0)
	fields := []struct {
		name string
		into *string
	}{{"schema", &b.Schema}, {"package", &b.Package}, {"name", &b.Name}}
	for i, f := range fields {
		s, err := jsonString(raw[i])
		if err != nil {
			e := locErr(loc, ErrBadField, "field %q must be a string, found %s", f.name, describeJSONValue(raw[i], 0))
			e.Schema, e.Package, e.Name = b.Schema, b.Package, b.Name
			return Blob{}, e
		}
		*f.into = s
	}
	if err := checkIdentity(b); err != nil {
		return Blob{}, err
	}
	return b, nil
}

// checkIdentity makes sure a blob has what the loader needs to file it: a schema, and the name and
// package of the core schemas. Everything else is the validator's business.
func checkIdentity(b Blob) *LoadError {
	fail := func(format string, args ...any) *LoadError {
		e := locErr(b.Loc, ErrMissingField, format, args...)
		e.Schema, e.Package, e.Name = b.Schema, b.Package, b.Name
		return e
	}
	if b.Schema == "" {
		return fail(`blob has no "schema" field (or it is empty); every catalog blob needs one, for example "schema": "olm.bundle"; if this file is not part of the catalog, list it in a .indexignore file`)
	}
	var needName, needPackage bool
	switch b.Schema {
	case SchemaPackage:
		needName = true
	case SchemaChannel, SchemaBundle:
		needName, needPackage = true, true
	case SchemaDeprecations:
		needPackage = true
	}
	if needName && b.Name == "" {
		return fail(`no "name" field (or it is empty); add the name`)
	}
	if needPackage && b.Package == "" {
		return fail(`no "package" field (or it is empty); add "package": "<name of its olm.package>"`)
	}
	return nil
}

// syntaxError locates a JSON syntax error inside a blob that starts at loc.
func syntaxError(data []byte, loc Location) *LoadError {
	var v struct{}
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return locErr(loc, ErrSyntax, "invalid JSON: %v", err)
	}
	off := min(max(int(se.Offset), 0), len(data))
	// Offset counts the byte that was found wrong; report the line that byte is on.
	if off > 0 {
		off--
	}
	loc.Line += bytes.Count(data[:off], []byte{'\n'})
	return &LoadError{Loc: loc, Err: &problem{kind: ErrSyntax, cause: se, msg: fmt.Sprintf("invalid JSON: %v; fix the JSON syntax at this line", se)}}
}

func describeJSONValue(data []byte, first int) string {
	if first < 0 || first >= len(data) {
		return "nothing"
	}
	switch data[first] {
	case '[':
		return "a JSON array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	default:
		return "a number"
	}
}

// replaceInvalidUTF8 replaces each byte that is not part of valid UTF-8 with U+FFFD, which is what
// encoding/json (and so opm) makes of such bytes in strings; valid JSON can hold them nowhere else.
// Doing it once here keeps raw fields (unknown fields, custom blobs) consistent with decoded ones
// and writable as YAML.
func replaceInvalidUTF8(data []byte) []byte {
	out := make([]byte, 0, len(data)+len(data)/8)
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, data[:size]...)
		}
		data = data[size:]
	}
	return out
}

// firstInvalidUTF8 is the offset of the first byte of data that is not part of valid UTF-8.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// jsonString decodes a JSON string value; absent and null give "".
func jsonString(raw []byte) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] != '"' || len(raw) < 2 {
		return "", fmt.Errorf("not a string")
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// scanHead returns the bounds in obj of the raw values of the top-level "schema", "package" and
// "name" fields of a valid JSON object ({0, 0} for absent ones; the last one wins when a key
// repeats, as in encoding/json).
func scanHead(obj []byte) [3][2]int {
	var out [3][2]int
	i := skipSpaceAt(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		keyEnd := skipJSONValue(obj, i)
		key := obj[i:keyEnd]
		i = skipSpaceAt(obj, keyEnd) + 1 // past ':'
		if i > len(obj) {
			break // not valid JSON: a second reading of a file changed since (Loader.checked)
		}
		i = skipSpaceAt(obj, i)
		valueEnd := skipJSONValue(obj, i)
		slot := headSlot(unquoteKey(key))
		if slot >= 0 {
			out[slot] = [2]int{i, valueEnd}
		}
		i = skipSpaceAt(obj, valueEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpaceAt(obj, i+1)
		}
	}
	return out
}

// headSlot is where scanHead keeps a key's value: 0 schema, 1 package, 2 name, -1 none. Keys are
// matched as operator-registry's declcfg.Meta decodes them (encoding/json: case-insensitively, so
// "Schema" is the schema; of several spellings the last one wins).
func headSlot(key []byte) int {
	for slot, name := range [...]string{"schema", "package", "name"} {
		if bytes.EqualFold(key, []byte(name)) {
			return slot
		}
	}
	return -1
}

func unquoteKey(key []byte) []byte {
	if len(key) < 2 {
		return nil
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return key[1 : len(key)-1]
	}
	var s string
	if json.Unmarshal(key, &s) != nil {
		return nil
	}
	return []byte(s)
}

func skipSpaceAt(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipJSONValue returns the index just past the value starting at b[i] (which must not be space).
func skipJSONValue(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipJSONString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipJSONValue(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i + 1
		for j < len(b) && !isJSONDelimiter(b[j]) {
			j++
		}
		return j
	}
}

// skipJSONString returns the index just past the string starting at b[i] (a quote), or len(b). It
// jumps from quote to quote: a quote ends the string unless an odd run of backslashes precedes it.
func skipJSONString(b []byte, i int) int {
	for j := i + 1; ; {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b)
		}
		q += j
		run := 0
		for k := q - 1; k > i && b[k] == '\\'; k-- {
			run++
		}
		if run%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}
