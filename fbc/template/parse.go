package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
)

// The schemas of the three template types, and the type names opm's command line takes for them.
const (
	SchemaBasic       = fbc.SchemaTemplateBasic
	SchemaSemver      = fbc.SchemaTemplateSemver
	SchemaSubstitutes = fbc.SchemaTemplateSubstitutes
)

// Types are the TYPE arguments of render-template, in the order opm lists them.
var Types = []string{"basic", "semver", "substitutes"}

// SchemaOfType is the schema a TYPE argument names ("" for an unknown type).
func SchemaOfType(typ string) string {
	switch typ {
	case "basic":
		return SchemaBasic
	case "semver":
		return SchemaSemver
	case "substitutes":
		return SchemaSubstitutes
	}
	return ""
}

// TypeOfSchema is the TYPE argument of a template schema ("" for another schema).
func TypeOfSchema(schema string) string {
	for _, typ := range Types {
		if SchemaOfType(typ) == schema {
			return typ
		}
	}
	return ""
}

// Template is a parsed catalog template: exactly one of its fields is set.
type Template struct {
	Basic       *Basic
	Semver      *Semver
	Substitutes *Substitutes
	// Lines locate the template's parts in the text it was parsed from (nil: unknown).
	Lines *Lines
}

// Schema is the template's schema.
func (t *Template) Schema() string {
	switch {
	case t.Basic != nil:
		return SchemaBasic
	case t.Semver != nil:
		return SchemaSemver
	default:
		return SchemaSubstitutes
	}
}

// Basic is an olm.template.basic: FBC blobs, of which the olm.bundle ones name only an image.
type Basic struct {
	Entries []json.RawMessage
}

// Semver is an olm.semver template, with opm's defaults applied: at least one kind of channel is
// generated, and DefaultChannelTypePreference is "major" or "minor".
type Semver struct {
	GenerateMajorChannels        bool
	GenerateMinorChannels        bool
	DefaultChannelTypePreference string
	Candidate, Fast, Stable      []string // bundle images, as listed
}

// Substitutes is an olm.template.substitutes: complete FBC entries, and substitutions of a bundle
// (Base, a bundle name) by a newer one (Name, a bundle image).
type Substitutes struct {
	Entries       []json.RawMessage
	Substitutions []Substitution
}

// Substitution replaces the bundle named Base by the bundle of the image Name.
type Substitution struct {
	Name string `json:"name"`
	Base string `json:"base"`
}

// ParseError is a template that cannot be read; its message is opm's.
type ParseError struct{ msg string }

func (e *ParseError) Error() string { return e.msg }

func parseErrorf(format string, args ...any) error {
	return &ParseError{msg: fmt.Sprintf(format, args...)}
}

// Parse reads a template of the given TYPE ("basic", "semver", "substitutes"), or of the type its
// schema names when typ is "". As in opm, only the first YAML or JSON document of data is read,
// and error messages are opm's: "auto-detecting template type: ..." when the schema cannot be
// found or is not a template's, "rendering template: ..." when the template itself is wrong.
func Parse(typ string, data []byte) (*Template, error) {
	// The first document is read once, for the schema and for the entries.
	doc, lines, fromJSON, docErr := readFirstDocument(data)
	schema := SchemaOfType(typ)
	if typ == "" {
		var err error
		if schema, err = schemaOf(doc, docErr); err != nil {
			return nil, parseErrorf("auto-detecting template type: %v", err)
		}
	} else if schema == "" {
		return nil, parseErrorf("invalid template type %q, must be one of: [%s]", typ, strings.Join(Types, " "))
	}
	var t Template
	var err error
	switch schema {
	case SchemaBasic:
		t.Basic, err = parseBasic(doc, docErr)
	case SchemaSemver:
		if lines != nil {
			// Read item by item, strictly (see splitDocument): decoded from its JSON.
			t.Semver, err = semverFromJSON(doc)
		}
		if t.Semver == nil && err == nil {
			lines = nil // read whole, and so are its lines
			t.Semver, err = parseSemver(data)
			if err != nil {
				err = fmt.Errorf("render: unable to read file: %v", err)
			}
		}
	case SchemaSubstitutes:
		t.Substitutes, err = parseSubstitutes(doc, docErr)
		if err != nil {
			err = fmt.Errorf("render: unable to parse template: %v", err)
		}
	}
	if err != nil {
		return nil, parseErrorf("rendering template: %v", err)
	}
	if lines == nil && fromJSON {
		lines = jsonLines(data)
	}
	if lines == nil {
		lines = findLines(data)
	}
	t.Lines = lines
	return &t, nil
}

// DetectSchema reads the schema of a template: the "schema" key of its first document, matched
// without regard to case as encoding/json matches keys.
func DetectSchema(data []byte) (string, error) {
	doc, _, err := firstDocument(data)
	return schemaOf(doc, err)
}

// schemaOf is the template schema of the first document doc, read with error docErr.
func schemaOf(doc json.RawMessage, docErr error) (string, error) {
	if docErr != nil {
		return "", fmt.Errorf("decoding template input: %v", docErr)
	}
	var s struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(doc, &s); err != nil {
		return "", fmt.Errorf("unmarshalling template schema: %v", err)
	}
	switch s.Schema {
	case "":
		return "", errors.New("template input missing required 'schema' field")
	case SchemaBasic, SchemaSemver, SchemaSubstitutes:
		return s.Schema, nil
	}
	return "", fmt.Errorf("unknown template schema: %s", s.Schema)
}

// FirstDocument is the first document of a YAML or JSON stream as JSON, read as Kubernetes'
// YAMLOrJSONDecoder reads it: a stream whose first non-space character is '{' may be JSON and
// its first value is taken; when it is not JSON (flow-style YAML: `{schema: olm.semver, ...}`),
// or otherwise, the text up to the first "---" line that follows some content is one YAML
// document (line numbers in errors count from the start of the stream). When neither reads, the
// JSON error is the one returned, as Kubernetes returns it.
func FirstDocument(data []byte) (json.RawMessage, error) {
	raw, _, err := firstDocument(data)
	return raw, err
}

// firstDocument is FirstDocument, with the lines of the template's parts when the document was
// read item by item (see splitDocument; nil otherwise).
func firstDocument(data []byte) (json.RawMessage, *Lines, error) {
	raw, lines, _, err := readFirstDocument(data)
	return raw, lines, err
}

// readFirstDocument is firstDocument, saying whether the document was read as JSON.
func readFirstDocument(data []byte) (_ json.RawMessage, _ *Lines, isJSON bool, _ error) {
	var jsonErr error
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		var raw json.RawMessage
		if jsonErr = json.NewDecoder(bytes.NewReader(t)).Decode(&raw); jsonErr == nil {
			return raw, nil, true, nil
		}
	}
	raw, lines, err := firstYAMLDocument(data)
	if err != nil && jsonErr != nil {
		return nil, nil, false, jsonErr
	}
	return raw, lines, false, err
}

func firstYAMLDocument(data []byte) (json.RawMessage, *Lines, error) {
	doc, content := data, false
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		line := data[pos:next]
		if isSeparator(line) {
			if content {
				doc = data[:pos]
				break
			}
		} else {
			content = true
		}
		pos = next
	}
	if !content {
		return nil, nil, io.EOF
	}
	if split, ok := splitDocument(doc); ok {
		return split.json, split.lines, nil
	}
	var raw json.RawMessage
	if err := noPanic(func() error { return yaml.Unmarshal(doc, &raw) }); err != nil {
		return nil, nil, err
	}
	return raw, nil, nil
}

// noPanic runs a YAML parser call, turning a panic of the parser into an error.
func noPanic(parse func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML parser failed on this document: %v", r)
		}
	}()
	return parse()
}

// isSeparator reports whether a line is a YAML document separator: "---" at its start, followed by
// nothing but spaces or a comment.
func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := bytes.TrimSpace(line[3:])
	return len(rest) == 0 || rest[0] == '#'
}

func parseBasic(doc json.RawMessage, docErr error) (*Basic, error) {
	var t struct {
		Schema  string            `json:"schema"`
		Entries []json.RawMessage `json:"entries"`
	}
	if err := decodeEntriesDocument(doc, docErr, SchemaBasic, &t, &t.Schema, &t.Entries); err != nil {
		return nil, err
	}
	return &Basic{Entries: t.Entries}, nil
}

func parseSubstitutes(doc json.RawMessage, docErr error) (*Substitutes, error) {
	var t struct {
		Schema        string            `json:"schema"`
		Entries       []json.RawMessage `json:"entries"`
		Substitutions []Substitution    `json:"substitutions"`
	}
	if err := decodeEntriesDocument(doc, docErr, SchemaSubstitutes, &t, &t.Schema, &t.Entries); err != nil {
		return nil, err
	}
	return &Substitutes{Entries: t.Entries, Substitutions: t.Substitutions}, nil
}

// decodeEntriesDocument decodes the first document doc (read with error docErr) into t as opm decodes a basic or
// substitutes template, with its error messages: the schema (which lands in *gotSchema) must be
// schema, and every entry (in *entries) a JSON object. t is an unnamed struct, as opm's: a
// type's name would show in the decoding errors.
func decodeEntriesDocument(doc json.RawMessage, docErr error, schema string, t any, gotSchema *string, entries *[]json.RawMessage) error {
	if docErr != nil {
		return fmt.Errorf("decoding template schema: %v", docErr)
	}
	if err := json.Unmarshal(doc, t); err != nil {
		return fmt.Errorf("unmarshalling template: %v", err)
	}
	if *gotSchema != schema {
		return fmt.Errorf("template has unknown schema (%q), should be %q", *gotSchema, schema)
	}
	if err := checkEntries(*entries); err != nil {
		return fmt.Errorf("unmarshalling template: %v", err)
	}
	return nil
}

// checkEntries refuses entries that are not JSON objects, as opm's declcfg.Meta does. Entries
// are valid JSON (decoded from the document), so one that starts with '{' is an object; any other
// is decoded for the error opm gives.
func checkEntries(entries []json.RawMessage) error {
	for _, e := range entries {
		if t := bytes.TrimLeft(e, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil {
			return err
		}
	}
	return nil
}

// semverDocument is the serialized form of an olm.semver template. It is decoded strictly (an
// unknown key is an error) and without regard to the case of keys, as opm decodes it.
type semverDocument struct {
	Schema                       string          `json:"schema"`
	GenerateMajorChannels        bool            `json:"generateMajorChannels,omitempty"`
	GenerateMinorChannels        bool            `json:"generateMinorChannels,omitempty"`
	DefaultChannelTypePreference string          `json:"defaultChannelTypePreference,omitempty"`
	Candidate                    semverBundleSet `json:"candidate,omitempty"`
	Fast                         semverBundleSet `json:"fast,omitempty"`
	Stable                       semverBundleSet `json:"stable,omitempty"`
}

type semverBundleSet struct {
	Bundles []semverBundle `json:"bundles,omitempty"`
}

type semverBundle struct {
	Image string `json:"image,omitempty"`
}

func (s semverBundleSet) images() []string {
	out := make([]string, 0, len(s.Bundles))
	for _, b := range s.Bundles {
		out = append(out, b.Image)
	}
	return out
}

func parseSemver(data []byte) (*Semver, error) {
	var doc semverDocument
	if err := noPanic(func() error { return yaml.UnmarshalStrict(data, &doc) }); err != nil {
		return nil, err
	}
	return newSemver(doc)
}

// semverFromJSON decodes the JSON of a semver template's first document, read strictly as
// yaml.UnmarshalStrict reads it (an unknown key is an error). It returns nil, nil when the JSON
// does not decode: parseSemver then reads the text whole, for opm's error message.
func semverFromJSON(raw json.RawMessage) (*Semver, error) {
	var doc semverDocument
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, nil
	}
	sv, err := newSemver(doc)
	if err != nil {
		return nil, fmt.Errorf("render: unable to read file: %v", err)
	}
	return sv, nil
}

// newSemver is the template a decoded semver document says.
func newSemver(doc semverDocument) (*Semver, error) {
	if doc.Schema != SchemaSemver {
		return nil, fmt.Errorf("readFile: input file has unknown schema, should be %q", SchemaSemver)
	}
	sv := &Semver{
		GenerateMajorChannels:        doc.GenerateMajorChannels,
		GenerateMinorChannels:        doc.GenerateMinorChannels,
		DefaultChannelTypePreference: doc.DefaultChannelTypePreference,
		Candidate:                    doc.Candidate.images(),
		Fast:                         doc.Fast.images(),
		Stable:                       doc.Stable.images(),
	}
	if !sv.GenerateMajorChannels && !sv.GenerateMinorChannels {
		sv.GenerateMinorChannels = true
	}
	switch sv.DefaultChannelTypePreference {
	case "":
		if sv.GenerateMinorChannels {
			sv.DefaultChannelTypePreference = kindMinor
		} else {
			sv.DefaultChannelTypePreference = kindMajor
		}
	case kindMinor:
		if !sv.GenerateMinorChannels {
			return nil, errors.New("schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels")
		}
	case kindMajor:
		if !sv.GenerateMajorChannels {
			return nil, errors.New("schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels")
		}
	default:
		return nil, fmt.Errorf("unknown DefaultChannelTypePreference: %q\nValid values are 'major' or 'minor'", sv.DefaultChannelTypePreference)
	}
	return sv, nil
}

// The kinds of generated semver channels.
const (
	kindMajor = "major"
	kindMinor = "minor"
)
