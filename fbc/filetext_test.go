package fbc

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// restyleFiles are catalog files as opm and others wrote them: olmcat's fixtures (JSON) and, when
// present, the real catalogs of the conformance corpus (community YAML, JSON, hand-made YAML).
func restyleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"../fixtures/catalog", "../../shared/conformance/fbc"} {
		if _, err := os.Stat(root); err != nil {
			t.Logf("%s absent: not read", root)
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/catalog/") {
				return err
			}
			if ext := filepath.Ext(p); ext == ".json" || ext == ".yaml" || ext == ".yml" {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Fatal("no catalog files")
	}
	return files
}

// TestEncodeLikeGivesBackTheBlob: every blob of real catalog files, decoded and encoded again
// with EncodeLike in its file's format, key order and indentation, is its text byte for byte;
// so an in-place edit that changes one field of a blob changes the lines of that field only.
// SplitFile finds the blobs the loader reads, in order, at places that hold them.
func TestEncodeLikeGivesBackTheBlob(t *testing.T) {
	n := 0
	for _, path := range restyleFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ft, err := SplitFile(data, path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		loaded, err := LoadReader(bytes.NewReader(data), path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got, want := len(ft.Pieces), len(loaded.Packages)+len(loaded.Channels)+len(loaded.Bundles)+len(loaded.Deprecations)+len(loaded.Others); got != want {
			t.Fatalf("%s: SplitFile found %d blobs, the loader %d", path, got, want)
		}
		end := 0
		for _, p := range ft.Pieces {
			if p.Start < end || p.End <= p.Start || p.End > len(data) {
				t.Fatalf("%s: piece [%d, %d) after %d", path, p.Start, p.End, end)
			}
			end = p.End
			text := data[p.Start:p.End]
			c := &Catalog{}
			if err := c.Add(p.Blob); err != nil {
				t.Fatal(err)
			}
			var v any
			switch {
			case len(c.Packages) == 1:
				v = c.Packages[0]
			case len(c.Channels) == 1:
				v = c.Channels[0]
			case len(c.Bundles) == 1:
				v = c.Bundles[0]
			case len(c.Deprecations) == 1:
				v = c.Deprecations[0]
			default:
				v = c.Others[0]
			}
			f, want := JSON, append(bytes.Clone(text), '\n')
			if ft.YAML {
				f = YAML
				want = text
				if nl := bytes.IndexByte(text, '\n'); bytes.HasPrefix(text, []byte("---")) && nl >= 0 {
					want = text[nl+1:]
				}
			}
			got, err := EncodeLike(v, f, KeyOrderOf(text, ft.YAML), IndentOf(text))
			if err != nil {
				t.Fatalf("%s:%d: %v", path, p.Blob.Loc.Line, err)
			}
			if strings.HasSuffix(filepath.ToSlash(path), "konflux/deprecations.yaml") {
				// Written by hand, with quoted and block scalars: written again, its key order
				// and value stay, its scalars take the writer's style.
				again, err := SplitFile(append([]byte("---\n"), got...), path)
				if err != nil || len(again.Pieces) != 1 || !bytes.Equal(again.Pieces[0].Blob.Data, p.Blob.Data) ||
					!reflect.DeepEqual(KeyOrderOf(got, true), KeyOrderOf(text, true)) {
					t.Errorf("%s: written again, not the same blob or key order (%v):\n%s", path, err, got)
				}
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s:%d: %s %q written again differs:\n%.600s\nwant\n%.600s", path, p.Blob.Loc.Line, p.Blob.Schema, p.Blob.Name, got, want)
			}
			n++
		}
	}
	t.Logf("%d blobs", n)
}

// EncodeLike keeps the key order of the blob it replaces, nested objects included, and places a
// key the old blob lacked after the key the writer puts before it.
func TestEncodeLikeKeepsKeyOrder(t *testing.T) {
	old := []byte(`{"name": "stable", "schema": "olm.channel", "package": "p",
  "entries": [{"replaces": "p.v1", "name": "p.v2"}]}`)
	ch := Channel{Schema: SchemaChannel, Name: "stable", Package: "p", Entries: []ChannelEntry{
		{Name: "p.v2", Replaces: "p.v1", SkipRange: "<2.0.0"}, {Name: "p.v3", Replaces: "p.v2"}}}
	got, err := EncodeLike(ch, JSON, KeyOrderOf(old, false), IndentOf(old))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "stable",
  "schema": "olm.channel",
  "package": "p",
  "entries": [
    {
      "replaces": "p.v1",
      "skipRange": "<2.0.0",
      "name": "p.v2"
    },
    {
      "replaces": "p.v2",
      "name": "p.v3"
    }
  ]
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// One line stays one line; YAML sorted stays sorted, a new key in its place.
	if got, _ := EncodeLike(ch, JSON, nil, ""); !bytes.HasPrefix(got, []byte(`{"schema":"olm.channel","name":"stable","package":"p","entries":[{"name":"p.v2","replaces":"p.v1","skipRange":"<2.0.0"}`)) {
		t.Errorf("one line: %s", got)
	}
	yamlOld := []byte("---\nentries:\n- name: p.v2\n  replaces: p.v1\nname: stable\npackage: p\nschema: olm.channel\n")
	got, err = EncodeLike(ch, YAML, KeyOrderOf(yamlOld, true), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "entries:\n- name: p.v2\n  replaces: p.v1\n  skipRange: <2.0.0\n- name: p.v3\n  replaces: p.v2\nname: stable\npackage: p\nschema: olm.channel\n"; string(got) != want {
		t.Errorf("YAML:\n%s\nwant\n%s", got, want)
	}
}

// FuzzSplitFile: a file the loader reads without a problem splits into the same blobs, in order,
// at places that do not overlap; the text of a JSON blob's place is the blob.
func FuzzSplitFile(f *testing.F) {
	for _, seed := range []string{
		"{\"schema\":\"olm.package\",\"name\":\"a\"}\n{\"schema\":\"olm.channel\",\"package\":\"a\",\"name\":\"s\",\"entries\":[]}",
		"\xEF\xBB\xBF  {\"schema\":\"x\"}{\"schema\":\"y\"}",
		"---\nschema: olm.package\nname: a\n---\n# comment\n---\nschema: olm.channel\npackage: a\nname: s\n",
		"schema: olm.package\nname: a\n--- {schema: x}\n...\n",
		"# header\n\n---\nschema: x # trailing\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var blobs []Blob
		problems := false
		fr := fileReader{file: "f", maxBlob: 1 << 16,
			report: func(*LoadError) { problems = true },
			emit:   func(b Blob) error { blobs = append(blobs, b); return nil }}
		if err := fr.read(bytes.NewReader(data)); err != nil || problems {
			return
		}
		ft, err := SplitFile(data, "f")
		if err != nil {
			t.Fatalf("SplitFile fails on what the loader reads: %v", err)
		}
		if len(ft.Pieces) != len(blobs) {
			t.Fatalf("%d pieces, %d blobs", len(ft.Pieces), len(blobs))
		}
		end := 0
		for i, p := range ft.Pieces {
			b := blobs[i]
			if p.Start < end || p.End < p.Start || p.End > len(data) {
				t.Fatalf("piece %d at [%d, %d) after %d", i, p.Start, p.End, end)
			}
			end = p.End
			if p.Blob.Schema != b.Schema || p.Blob.Package != b.Package || p.Blob.Name != b.Name || !bytes.Equal(p.Blob.Data, b.Data) || p.Blob.Loc != b.Loc {
				t.Fatalf("piece %d: %+v, loader %+v", i, p.Blob, b)
			}
			if !ft.YAML && b.InvalidUTF8Line == 0 && !bytes.Equal(data[p.Start:p.End], b.Data) {
				t.Fatalf("piece %d: place holds %q, blob %q", i, data[p.Start:p.End], b.Data)
			}
		}
	})
}
