package main

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzInPlaceEdit: whatever the text of a package's file (JSON or YAML, comments, flow style,
// blank lines, separators), an edit that --output-dir makes, --in-place makes too, to the same
// catalog; and it never leaves the file unreadable.
func FuzzInPlaceEdit(f *testing.F) {
	for _, seed := range []string{
		"---\nschema: olm.package\nname: p\ndefaultChannel: s\n---\nschema: olm.channel\npackage: p\nname: s\nentries:\n- name: p.v1\n- name: p.v2\n  replaces: p.v1\n---\nschema: olm.bundle\npackage: p\nname: p.v1\nimage: x/p:v1\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 1.0.0}\n---\nschema: olm.bundle\npackage: p\nname: p.v2\nimage: x/p:v2\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 2.0.0}\n",
		`{"schema":"olm.package","name":"p","defaultChannel":"s"}
{"schema":"olm.channel","package":"p","name":"s","entries":[{"name":"p.v1"},{"name":"p.v2","replaces":"p.v1"}]}
{"schema":"olm.bundle","package":"p","name":"p.v1","image":"x/p:v1","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v2","image":"x/p:v2","properties":[{"type":"olm.package","value":{"packageName":"p","version":"2.0.0"}}]}`,
		"# header\n--- {schema: olm.package, name: p, defaultChannel: s}\n--- # c\n{schema: olm.channel, package: p, name: s, entries: [{name: p.v1}, {name: p.v2, replaces: p.v1}]}\n# end\n---\nschema: olm.bundle\npackage: p\nname: p.v1\nimage: x/p:v1\nproperties: []\n---\nschema: olm.bundle\npackage: p\nname: p.v2\nimage: x/p:v2\nproperties: []\n",
	} {
		f.Add([]byte(seed), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text []byte, op uint8) {
		edits := [][]string{
			{"deprecate", "--package", "p", "--message", "m"},
			{"deprecate", "--package", "p", "--channel", "s", "--message", "m"},
			{"rm", "p.v1"},
			{"rm", "p.v2"},
			{"rm", "--package", "p"},
			{"graph-rebuild", "--package", "p", "--mode", "semver"},
		}
		edit := edits[int(op)%len(edits)]
		tmp := t.TempDir()
		cat := filepath.Join(tmp, "cat")
		if err := os.MkdirAll(filepath.Join(cat, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cat, "p", "catalog.yaml"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		args := func(extra ...string) []string {
			return append(append([]string{edit[0], cat}, edit[1:]...), extra...)
		}
		if code, _, _ := runCLI(t, args("--output-dir", filepath.Join(tmp, "out"))...); code != 0 {
			return
		}
		if code, _, errs := runCLI(t, args("--in-place")...); code != 0 {
			t.Fatalf("%v: --output-dir does it, --in-place exits %d: %s", edit, code, errs)
		}
		if canonical(t, cat) != canonical(t, filepath.Join(tmp, "out")) {
			t.Fatalf("%v: --in-place and --output-dir give different catalogs", edit)
		}
	})
}
