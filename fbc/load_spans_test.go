package fbc

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// streamBlobs reads data as the streaming reader reads a file, giving its blobs and problems.
func streamBlobs(t *testing.T, data []byte, maxBlob int) ([]Blob, []*LoadError) {
	t.Helper()
	var blobs []Blob
	var problems []*LoadError
	fr := fileReader{file: "f.json", maxBlob: maxBlob,
		report: func(e *LoadError) { problems = append(problems, e) },
		emit:   func(b Blob) error { blobs = append(blobs, b); return nil }}
	if err := fr.read(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return blobs, problems
}

// FuzzPlaceJSON: what the one-pass reading of a whole file (placeJSON) accepts, the streaming
// reader reads without a problem into the same blobs, at the same places, with the same heads;
// and a blob taken from its place (the second reading) is the blob the streaming reader gives.
func FuzzPlaceJSON(f *testing.F) {
	for _, seed := range []string{
		blobFile("olm.package", "a") + "\n" + `{"schema":"olm.bundle","name":"a.v1","package":"a","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}`,
		"  \n\t{\"schema\":\"x.custom\"}\r\n{\"Schema\":\"olm.package\",\"NAME\":\"b\",\"name\":\"c\"}\n",
		`{"sch\u0065ma":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1"}]}`,
		`{"schema":"olm.package","name":"a"} [1]`,
		`{"schema":"olm.package","name":"a"}{"schema":"olm.package","name":7}`,
		`{"schema":"olm.package","name":"a\u00e9\"\\"}`,
		"{\"schema\":\"olm.package\",\"name\":\"a\xff\"}",
		`{"schema":"olm.package","name":"a","x":[[[[{"y":-1.5e+3,"z":true,"w":null}]]]]}`,
		`{"schema":"olm.package","name":"a"`,
		`{}`,
		"\xEF\xBB\xBF" + blobFile("olm.package", "bom"),
		"schema: olm.package\nname: a\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const maxBlob = 300
		placed, ok := placeJSON(data, 0, maxBlob, nil)
		if !ok {
			return
		}
		blobs, problems := streamBlobs(t, data, maxBlob)
		if len(problems) > 0 {
			t.Fatalf("placeJSON took what the streaming reader reports: %v", problems)
		}
		if len(blobs) != len(placed) {
			t.Fatalf("placeJSON found %d blobs, the streaming reader %d", len(placed), len(blobs))
		}
		for i, b := range blobs {
			p := placed[i]
			if p.span != b.span || p.pkgName != b.PackageName() {
				t.Fatalf("blob %d: placeJSON %+v of package %q, the streaming reader %+v of %q", i, p.span, p.pkgName, b.span, b.PackageName())
			}
			text := slices.Clone(data[p.span.off : p.span.off+int64(p.span.n)])
			if !bytes.Equal(text, b.Data) {
				t.Fatalf("blob %d: placed text %q, streamed %q", i, text, b.Data)
			}
			again, ok := p.span.blob(text, "f.json")
			if !ok || again.Schema != b.Schema || again.Package != b.Package || again.Name != b.Name || again.Loc != b.Loc || again.InvalidUTF8Line != b.InvalidUTF8Line {
				t.Fatalf("blob %d taken from its place: %+v (%v), streamed %+v", i, again, ok, b)
			}
		}
	})
}

// The second reading of WalkPackages takes each blob of a JSON file from where the first found it,
// whatever the file looks like: the packages are what Load gives, blob for blob, bundles deferred
// or not. The files cover what the one-pass reading of a whole file hands to the streaming reader
// (invalid UTF-8, nesting deeper than its scanner follows), what it reads itself (a byte order
// mark, CRLF, space between blobs, escaped, differently cased and repeated keys), YAML, and blobs
// of several packages in a file.
func TestWalkPackagesPlacedBlobsMatchLoad(t *testing.T) {
	deep := strings.Repeat("[", 1100) + strings.Repeat("]", 1100)
	dir := writeTree(t, map[string]string{
		"a/catalog.json": "\xEF\xBB\xBF" + blobFile("olm.package", "a") + "\r\n\r\n   " +
			`{"schema":"olm.channel","package":"a","name":"stable","entries":[{"name":"a.v1"},{"name":"a.v2","replaces":"a.v1"}]}` + "\n" +
			`{"sch\u0065ma":"olm.bundle","package":"a","name":"a.v1","image":"i1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}` +
			`{"schema":"olm.bundle","Package":"zz","package":"a","NAME":"x","name":"a.v2","image":"i2","description":"caf\u00e9 \"2\""}`,
		"b/catalog.json": blobFile("olm.package", "b") + "\n" +
			"{\"schema\":\"olm.bundle\",\"package\":\"b\",\"name\":\"b.v1\",\"image\":\"bad \xff utf-8\"}\n" +
			`{"schema":"x.custom","package":"b","deep":` + deep + `}`,
		"c/catalog.yaml": "schema: olm.package\nname: c\n---\nschema: olm.bundle\npackage: c\nname: c.v1\nimage: i\n",
		"d/catalog.json": blobFile("olm.package", "d") + blobFile("olm.package", "e") +
			`{"schema":"olm.bundle","package":"e","name":"e.v1"}{"schema":"x.global"}`,
	})
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := SplitByPackage(c)
	for _, deferring := range []bool{false, true} {
		l := Loader{}
		if deferring {
			l.DeferBundle = func(Blob) bool { return true }
		}
		i := 0
		err := l.WalkPackages(dir, func(pkg string, got *Catalog) error {
			if i >= len(want) || want[i].Package != pkg {
				t.Fatalf("package #%d is %q, want the order of SplitByPackage", i, pkg)
			}
			if err := DecodeBundles(bundlePointers(got)); err != nil {
				t.Fatal(err)
			}
			if a, b := catalogFingerprint(t, want[i].Catalog), catalogFingerprint(t, got); a != b {
				t.Errorf("deferring %v: package %q differs from Load's:\n%s\nvs\n%s", deferring, pkg, a, b)
			}
			i++
			return nil
		})
		if err != nil || i != len(want) {
			t.Fatalf("deferring %v: %d of %d packages, %v", deferring, i, len(want), err)
		}
	}
}

func bundlePointers(c *Catalog) []*Bundle {
	var out []*Bundle
	for i := range c.Bundles {
		out = append(out, &c.Bundles[i])
	}
	return out
}

// A file that changes between the two readings is read afresh: whether its size changed, or only
// its content, its modification time set back (the blobs moved: none is where it was).
func TestWalkPackagesRereadsFileChangedBetweenReadings(t *testing.T) {
	bundle := func(name string) string {
		return `{"schema":"olm.bundle","package":"b","name":"` + name + `","image":"img"}`
	}
	for _, tc := range []struct {
		name    string
		changed string
		want    string
	}{
		{"size", blobFile("olm.package", "b") + bundle("b.v1") + bundle("b.v2"), "b.v1,b.v2"},
		// Same size: two spaces move from the end to the front.
		{"same size and time", "  " + blobFile("olm.package", "b") + bundle("b.v9"), "b.v9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{
				"a.json": blobFile("olm.package", "a"),
				"b.json": blobFile("olm.package", "b") + bundle("b.v1") + "  ",
			})
			bPath := filepath.Join(dir, "b.json")
			info, err := os.Stat(bPath)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			err = WalkPackages(dir, func(pkg string, c *Catalog) error {
				switch pkg {
				case "a": // b.json was read once: change it before its second reading
					if err := os.WriteFile(bPath, []byte(tc.changed), 0o644); err != nil {
						t.Fatal(err)
					}
					if len(tc.changed) == int(info.Size()) {
						if err := os.Chtimes(bPath, time.Time{}, info.ModTime()); err != nil {
							t.Fatal(err)
						}
					}
				case "b":
					var names []string
					for _, b := range c.Bundles {
						names = append(names, b.Name)
					}
					got = strings.Join(names, ",")
				}
				return nil
			})
			if err != nil || got != tc.want {
				t.Errorf("bundles of b: %q, want %q (%v)", got, tc.want, err)
			}
		})
	}
}

// The first reading of WalkPackages reads files ahead on helper goroutines; its problems still
// come in the order of a walk that reads one file after another (Walk's), whichever reader, the
// helpers' or the streaming one, met them, and with the walk's own problems (a link leading out
// of the catalog) in their place.
func TestWalkPackagesReportsProblemsInWalkOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 14 {
		name := "p" + string(rune('a'+i))
		files[name+"/catalog.json"] = blobFile("olm.package", name)
	}
	files["pb/catalog.json"] += `{"schema":"olm.bundle","name":"pb.v1"}`              // no package
	files["pc/catalog.json"] += `{"schema":"olm.bundle","package":"pc","name":`       // truncated
	files["pe/catalog.yaml"] = "schema: olm.package\nname: [pe\n"                     // YAML syntax
	files["pf/catalog.json"] = "\x00\x01binary"                                       // not text
	files["ph/catalog.json"] += `{"schema":"olm.bundle","package":"ph","name":"x"} 7` // not an object
	files["pk/catalog.json"] = "\n  " + files["pk/catalog.json"] + `{"schema":""}`    // no schema
	dir := writeTree(t, files)
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "pj", "link.json")); err != nil {
		t.Fatal(err)
	}
	want := errorStrings(loadErrorList(t, Walk(dir, func(Blob) error { return nil })))
	if len(want) != 7 {
		t.Fatalf("Walk found %d problems, want 7:\n%s", len(want), strings.Join(want, "\n"))
	}
	for form, walkPackages := range walkPackagesForms(t, dir) {
		called := false
		got := errorStrings(loadErrorList(t, walkPackages(func(string, *Catalog) error { called = true; return nil })))
		if !slices.Equal(got, want) || called {
			t.Errorf("%s (called %v):\n%s\nwant Walk's:\n%s", form, called, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// FuzzPlacedBlobChangedFile: should a file change between the two readings of WalkPackages without
// its size and time showing it, the second reading takes whatever text is at a recorded place;
// making a blob of it must not panic, and a blob it accepts has the head the loader requires.
func FuzzPlacedBlobChangedFile(f *testing.F) {
	f.Add([]byte(blobFile("olm.package", "a")), uint32(30))
	f.Add([]byte(`{"schema":"olm.bundle","package":"p","name":"n","x":[1]}`), uint32(9))
	f.Add([]byte(`{"schema":"olm.bundle"    }`), uint32(200))
	f.Add([]byte(`{"a":"b","schema":"x"}`), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, headEnd uint32) {
		sp := blobSpan{n: uint32(len(data)), line: 1, headEnd: headEnd}
		b, ok := sp.blob(data, "f.json")
		if ok && checkIdentity(b) != nil {
			t.Fatalf("accepted a blob without the head it needs: %+v", b)
		}
	})
}
