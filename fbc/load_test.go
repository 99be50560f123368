package fbc

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadString loads s as one stream named "in" and returns the catalog and the load problems.
func loadString(t *testing.T, l Loader, s string) (*Catalog, []*LoadError) {
	t.Helper()
	c, err := l.LoadReader(strings.NewReader(s), "in")
	return c, loadErrorList(t, err)
}

func loadErrorList(t *testing.T, err error) []*LoadError {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs *LoadErrors
	if !errors.As(err, &errs) {
		t.Fatalf("want *LoadErrors, got %T: %v", err, err)
	}
	return errs.Errs
}

func blobCount(c *Catalog) int {
	return len(c.Packages) + len(c.Channels) + len(c.Bundles) + len(c.Deprecations) + len(c.Others)
}

func TestLoadReaderJSONLocations(t *testing.T) {
	in := "\n\n{\"schema\":\"olm.package\",\"name\":\"a\"}{\"schema\":\"olm.channel\",\"name\":\"s\",\"package\":\"a\",\n" +
		"\"entries\":[{\"name\":\"a.v1\"}]}\n  {\n    \"schema\": \"olm.bundle\",\n    \"name\": \"a.v1\",\n    \"package\": \"a\"\n  }\n" +
		"{\"schema\":\"x.custom\",\"note\":\"braces } and \\\" quotes { in strings\"}\n"
	c, errs := loadString(t, Loader{}, in)
	if errs != nil {
		t.Fatal(errs)
	}
	got := []int{c.Packages[0].Loc.Line, c.Channels[0].Loc.Line, c.Bundles[0].Loc.Line, c.Others[0].Loc.Line}
	want := []int{3, 3, 5, 10}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("blob lines %v, want %v", got, want)
			break
		}
	}
	if c.Bundles[0].Loc.File != "in" {
		t.Errorf("file %q, want the stream name", c.Bundles[0].Loc.File)
	}
	if c.Others[0].Schema != "x.custom" || !strings.Contains(string(c.Others[0].Blob), `braces } and \" quotes {`) {
		t.Errorf("custom blob not kept verbatim: %+v", c.Others[0])
	}
}

func TestLoadReaderYAMLLocations(t *testing.T) {
	in := "# leading comment\n\nschema: olm.package\nname: a\n" + // doc 1, line 3
		"---\n# only a comment: no blob\n" + // empty document, skipped
		"--- # separator with a comment\n\n  # indented comment\nschema: olm.channel\nname: s\npackage: a\n" + // line 10
		"---\n--- {schema: olm.bundle, name: a.v1, package: a}\n" + // empty doc, then content on the separator line 14
		"...\n---\r\nschema: x.custom\r\nkey: value\r\n" // "..." is no content; CRLF lines; line 17
	c, errs := loadString(t, Loader{}, in)
	if errs != nil {
		t.Fatal(errs)
	}
	if blobCount(c) != 4 {
		t.Fatalf("%d blobs, want 4", blobCount(c))
	}
	got := []int{c.Packages[0].Loc.Line, c.Channels[0].Loc.Line, c.Bundles[0].Loc.Line, c.Others[0].Loc.Line}
	want := []int{3, 10, 14, 17}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("blob lines %v, want %v", got, want)
			break
		}
	}
	if string(c.Others[0].Blob) != `{"key":"value","schema":"x.custom"}` {
		t.Errorf("YAML blob converted to %s", c.Others[0].Blob)
	}
}

func TestLoadReaderEmptyInputs(t *testing.T) {
	for _, in := range []string{"", "   \n\t\n", "# just a comment\n", "---\n---\n", "\xEF\xBB\xBF"} {
		c, errs := loadString(t, Loader{}, in)
		if errs != nil || blobCount(c) != 0 {
			t.Errorf("%q: want no blobs and no error, got %d blobs, %v", in, blobCount(c), errs)
		}
	}
	c, errs := loadString(t, Loader{}, "\xEF\xBB\xBF{\"schema\":\"olm.package\",\"name\":\"a\"}")
	if errs != nil || len(c.Packages) != 1 {
		t.Errorf("JSON after a UTF-8 byte order mark: %d packages, %v", len(c.Packages), errs)
	}
}

// Each broken input gives exactly the listed problems, located, and the blobs around them still load.
func TestLoadReaderProblems(t *testing.T) {
	pkgA := `{"schema":"olm.package","name":"a"}`
	tests := []struct {
		name      string
		in        string
		kind      error
		line      int
		contains  string
		wantBlobs int
	}{
		{"truncated JSON", pkgA + "\n{\"schema\":\"olm.bundle\",\n\"name\":\"a.v1\"", ErrSyntax, 2, "unexpected EOF", 1},
		{"truncated string", pkgA + "\n{\"schema\":\"olm.bu", ErrSyntax, 2, "unexpected EOF", 1},
		{"JSON syntax error", pkgA + "\n{\n\"schema\": \"olm.package\",\n\"name\": oops\n}\n" + pkgA, ErrSyntax, 4, "invalid character 'o'", 1},
		{"JSON garbage between blobs", pkgA + "\nnonsense\n" + pkgA, ErrSyntax, 2, "invalid character", 1},
		{"stray closing brace", pkgA + "}\n" + pkgA, ErrSyntax, 1, "invalid character '}'", 1},
		{"JSON array blob", pkgA + "\n[1, 2]\n" + pkgA, ErrNotObject, 2, "a JSON array", 2},
		{"JSON string blob", pkgA + "\n\"text\"\n" + pkgA, ErrNotObject, 2, "a string", 2},
		{"JSON null blob", pkgA + " null " + pkgA, ErrNotObject, 1, "found null", 2},
		{"JSON number blob", pkgA + "\n42\n", ErrNotObject, 2, "a number", 1},
		{"no schema", pkgA + "\n{\"name\":\"x\"}", ErrMissingField, 2, `no "schema"`, 1},
		{"empty schema", `{"schema":""}` + "\n" + pkgA, ErrMissingField, 1, `no "schema"`, 1},
		{"schema in other case, no name", `{"Schema":"olm.package","NAME":""}`, ErrMissingField, 1, `no "name"`, 0},
		{"schema not a string", `{"schema":5}`, ErrBadField, 1, `"schema" must be a string, found a number`, 0},
		{"name not a string", `{"schema":"x.y","name":["a"]}`, ErrBadField, 1, `"name" must be a string, found a JSON array`, 0},
		{"bundle without package", `{"schema":"olm.bundle","name":"a.v1","image":"i"}`, ErrMissingField, 1, `in:1: olm.bundle "a.v1": no "package" field`, 0},
		{"bundle without name", `{"schema":"olm.bundle","package":"a"}`, ErrMissingField, 1, `no "name"`, 0},
		{"channel without name", "schema: olm.channel\npackage: a\n", ErrMissingField, 1, `in:1: olm.channel blob of package "a": no "name" field`, 0},
		{"channel without package", `{"schema":"olm.channel","name":"s"}`, ErrMissingField, 1, `no "package"`, 0},
		{"package without name", `{"schema":"olm.package"}`, ErrMissingField, 1, `no "name"`, 0},
		{"deprecations without package", `{"schema":"olm.deprecations","entries":[]}`, ErrMissingField, 1, `no "package"`, 0},
		{"bundle properties not a list", pkgA + "\n" + `{"schema":"olm.bundle","name":"a.v1","package":"a","properties":{}}`, ErrBadField, 2, `cannot decode the blob: field "properties"`, 1},
		{"YAML tab indentation", "schema: olm.package\n\tname: a\n", ErrSyntax, 2, "not tabs", 0},
		{"YAML syntax error in 2nd document", "schema: olm.package\nname: a\n---\nschema: olm.channel\nentries:\n  - name: [x\n---\nschema: x.y\n", ErrSyntax, 6, "invalid YAML", 2},
		{"YAML scalar document", "just some text\n", ErrNotObject, 1, "found a string", 0},
		{"YAML list document", "---\n- a\n- b\n", ErrNotObject, 2, "a JSON array", 0},
		{"YAML without schema", "name: a\n", ErrMissingField, 1, `no "schema"`, 0},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00", ErrNotCatalogData, 0, "binary content (NUL byte at offset 7)", 0},
		{"not UTF-8", "\xff\xfe\xfd text", ErrNotCatalogData, 0, "not UTF-8", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, errs := loadString(t, Loader{}, tc.in)
			if len(errs) != 1 {
				t.Fatalf("want 1 problem, got %d: %v", len(errs), errs)
			}
			e := errs[0]
			if !errors.Is(e, tc.kind) {
				t.Errorf("problem %q is not %v", e, tc.kind)
			}
			if e.Loc.File != "in" || e.Loc.Line != tc.line {
				t.Errorf("problem at %s, want in:%d (%v)", e.Loc, tc.line, e)
			}
			if !strings.Contains(e.Error(), tc.contains) {
				t.Errorf("message %q does not contain %q", e.Error(), tc.contains)
			}
			if n := blobCount(c); n != tc.wantBlobs {
				t.Errorf("%d blobs loaded, want %d", n, tc.wantBlobs)
			}
		})
	}
}

func TestLoadErrorNamesTheBlob(t *testing.T) {
	_, errs := loadString(t, Loader{}, `{"schema":"olm.bundle","name":"a.v1","package":"a","image":3}`)
	if len(errs) != 1 {
		t.Fatalf("want 1 problem, got %v", errs)
	}
	e := errs[0]
	if e.Schema != SchemaBundle || e.Name != "a.v1" || e.Package != "a" {
		t.Errorf("problem does not name the blob: %+v", e)
	}
	want := `in:1: olm.bundle "a.v1" of package "a": cannot decode the blob: field "image"`
	if !strings.HasPrefix(e.Error(), want) {
		t.Errorf("message %q, want prefix %q", e.Error(), want)
	}
}

func TestLoadErrorsAreCappedAndCounted(t *testing.T) {
	in := strings.Repeat(`{"name":"no schema"}`+"\n", 7) + `{"schema":"olm.package","name":"a"}`
	c, err := Loader{MaxErrors: 3}.LoadReader(strings.NewReader(in), "in")
	var errs *LoadErrors
	if !errors.As(err, &errs) || len(errs.Errs) != 3 || errs.Omitted != 4 {
		t.Fatalf("want 3 kept and 4 omitted problems, got %v", err)
	}
	if !strings.HasSuffix(err.Error(), "... and 4 more problems") {
		t.Errorf("message does not count the omitted problems: %q", err.Error())
	}
	if len(c.Packages) != 1 {
		t.Errorf("the good blob after the problems was not loaded")
	}
	if !errors.Is(err, ErrMissingField) {
		t.Errorf("errors.Is does not see through *LoadErrors")
	}
}

func TestWalkCallbackErrors(t *testing.T) {
	in := `{"schema":"olm.package","name":"a"}{"schema":"olm.package","name":"b"}{"schema":"olm.package","name":"c"}`
	var seen []string
	err := Loader{}.WalkReader(strings.NewReader(in), "in", func(b Blob) error {
		seen = append(seen, b.Name)
		if b.Name == "a" {
			return &LoadError{Err: errors.New("rejected by the callback")}
		}
		return nil
	})
	errs := loadErrorList(t, err)
	if len(seen) != 3 || len(errs) != 1 || errs[0].Loc.Line != 1 || errs[0].Loc.File != "in" {
		t.Errorf("a *LoadError from the callback should be recorded with the blob's location: seen %v, %v", seen, errs)
	}
	stop := errors.New("stop")
	seen = nil
	err = Loader{}.WalkReader(strings.NewReader(in), "in", func(b Blob) error {
		seen = append(seen, b.Name)
		return stop
	})
	if err != stop || len(seen) != 1 {
		t.Errorf("another error from the callback should stop the walk: seen %v, err %v", seen, err)
	}
}

// Fields this version does not know, at every level, unknown property types and custom schemas come
// back from a load+write unchanged (as JSON values), from JSON and from YAML input.
func TestUnknownFieldsSurviveLoadAndWrite(t *testing.T) {
	jsonIn := `{"schema":"olm.package","name":"a","defaultChannel":"s","future":{"x":[1,2.50,12345678901234567890]},"properties":[{"type":"com.example.unknown","value":{"deep":{"k":"<&>"}}}]}
{"schema":"olm.channel","name":"s","package":"a","entries":[{"name":"a.v1","weight":3,"skips":["a.v0"]}],"note":"n"}
{"schema":"olm.bundle","name":"a.v1","package":"a","image":"img","relatedImages":[{"name":"r","image":"i","digest":"sha256:x"}],"properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0","extra":true}},{"type":"x.y","value":null}],"signature":"s"}
{"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v1","kind":"k"},"message":"m","since":"v2"}],"owner":"o"}
{"schema":"com.example.docs","package":"a","title":"t","links":[{"url":"https://example.com/?a=1&b=<2>"}]}
{"schema":"com.example.global","n":1.0e+3}`
	c, errs := loadString(t, Loader{}, jsonIn)
	if errs != nil {
		t.Fatal(errs)
	}
	fromJSON := writtenBlobs(t, c)
	var want []string
	for _, line := range strings.Split(jsonIn, "\n") {
		want = append(want, canonicalJSON(t, []byte(line)))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, fromJSON); diff != "" {
		t.Errorf("JSON load+write lost or changed fields (-input +written):\n%s", diff)
	}

	var yamlIn bytes.Buffer
	if err := Write(&yamlIn, c, YAML); err != nil {
		t.Fatal(err)
	}
	c2, errs := loadString(t, Loader{}, yamlIn.String())
	if errs != nil {
		t.Fatal(errs)
	}
	// YAML has no number formats of its own: 2.50 and 1.0e+3 come back as 2.5 and 1000.
	normalize := strings.NewReplacer("2.50", "2.5", "1.0e+3", "1000")
	for i := range want {
		want[i] = normalize.Replace(want[i])
	}
	if diff := cmp.Diff(want, writtenBlobs(t, c2)); diff != "" {
		t.Errorf("YAML load+write lost or changed fields (-input +written):\n%s", diff)
	}
}
