package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func resolveCorpus(t *testing.T, name string) (catalog, recorded string) {
	t.Helper()
	catalog = filepath.Join(conformance, "fbc", name, "catalog")
	recorded = filepath.Join(conformance, "olmv1", name, "resolve.jsonl")
	for _, p := range []string{catalog, recorded} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("conformance input %s not found (run with /work/shared present)", p)
		}
	}
	return catalog, recorded
}

// olmcat resolve --queries answers a recording of operator-controller as it answered, line for line
// (the recording's answer fields are ignored on input).
func TestResolveQueriesCLI(t *testing.T) {
	for _, name := range []string{"deprecations-konflux", "community-v4.12-bundleobject-subset"} {
		catalog, recorded := resolveCorpus(t, name)
		out := mustRun(t, "resolve", catalog, "--queries", recorded)
		data, err := os.ReadFile(recorded)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSpace(string(data)), "\n")
		got := strings.Split(strings.TrimSpace(out), "\n")
		if len(got) != len(want) {
			t.Fatalf("%s: %d answers for %d queries", name, len(got), len(want))
		}
		type line struct {
			Package       string         `json:"package"`
			Channels      []string       `json:"channels"`
			Bundle        string         `json:"bundle"`
			BundleVersion string         `json:"bundleVersion"`
			Error         string         `json:"error"`
			Successors    []string       `json:"successors"`
			Install       map[string]any `json:"install"`
		}
		// the recording's ClusterExtension was installed in oracle-install-ns; olmcat names the
		// namespaces of the gate's configurations install-namespace and another-namespace
		namespaces := strings.NewReplacer("oracle-install-ns", "install-namespace", "other-ns", "another-namespace")
		for i := range want {
			want[i] = namespaces.Replace(want[i])
			var g, w line
			if err := json.Unmarshal([]byte(got[i]), &g); err != nil {
				t.Fatalf("%s answer %d: %v: %s", name, i+1, err, got[i])
			}
			if err := json.Unmarshal([]byte(want[i]), &w); err != nil {
				t.Fatal(err)
			}
			if g.Package != w.Package || !slices.Equal(g.Channels, w.Channels) || g.Bundle != w.Bundle ||
				g.BundleVersion != w.BundleVersion || g.Error != w.Error || !slices.Equal(g.Successors, w.Successors) ||
				!reflect.DeepEqual(g.Install, w.Install) {
				t.Errorf("%s line %d:\n got  %s\n want %s", name, i+1, got[i], want[i])
			}
		}
	}
}

// A single query: the pick in text and JSON, the installed bundle's version looked up, a refusal
// in operator-controller's words with exit 1, and usage errors with exit 2.
func TestResolveCLI(t *testing.T) {
	catalog, recorded := resolveCorpus(t, "deprecations-konflux")
	// the recording's first upgrade-channel query, asked with flags
	f, err := os.Open(recorded)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rec struct {
		Package    string   `json:"package"`
		Channels   []string `json:"channels"`
		Tag        string   `json:"tag"`
		Installed  struct{ Name, Version string }
		Bundle     string   `json:"bundle"`
		Version    string   `json:"bundleVersion"`
		Successors []string `json:"successors"`
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Tag == "upgrade-channel" && rec.Bundle != "" && len(rec.Successors) > 1 {
			break
		}
		rec.Tag = ""
	}
	if rec.Tag == "" {
		t.Fatal("the recording has no upgrade-channel query with a pick and several successors")
	}
	args := []string{"resolve", catalog, "--package", rec.Package, "--channel", rec.Channels[0], "--installed", rec.Installed.Name}
	out := mustRun(t, args...)
	for _, want := range []string{"bundle:     " + rec.Bundle + "\n", "version:    " + rec.Version + "\n",
		"installed:  " + rec.Installed.Name + " (" + rec.Installed.Version + "), policy CatalogProvided\n",
		"successors: " + strings.Join(rec.Successors, ", ") + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	var ans struct {
		Bundle     string   `json:"bundle"`
		Successors []string `json:"successors"`
		Installed  struct{ Version string }
	}
	js := mustRun(t, append(args, "-o", "json")...)
	if err := json.Unmarshal([]byte(js), &ans); err != nil || ans.Bundle != rec.Bundle || !slices.Equal(ans.Successors, rec.Successors) || ans.Installed.Version != rec.Installed.Version {
		t.Errorf("-o json: %v: %s", err, js)
	}

	code, out, _ := runCLI(t, "resolve", catalog, "--package", rec.Package, "--version", ">=99.0.0")
	if want := `refused:    no bundles found for package "` + rec.Package + `" matching version ">=99.0.0"`; code != exitFindings || !strings.Contains(out, want) {
		t.Errorf("refusal: exit %d, want 1 and %q:\n%s", code, want, out)
	}

	code, _, errs := runCLI(t, "resolve", catalog, "--package", rec.Package, "--channel", "no-such-channel")
	if want := "olmcat: note: package " + rec.Package + " has no channel no-such-channel; its channels: "; code != exitFindings || !strings.Contains(errs, want) {
		t.Errorf("unknown channel: exit %d, want 1 and %q:\n%s", code, want, errs)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"resolve", "-", "--queries", "-"}, "cannot both be standard input"},
		{[]string{"resolve", catalog}, "--package is required"},
		{[]string{"resolve", catalog, "--package", rec.Package, "--policy", "Never"}, `policy "Never"`},
		{[]string{"resolve", catalog, "--package", rec.Package, "--installed", "nope.v1"}, "--installed nope.v1: no bundle of that name"},
		{[]string{"resolve", catalog, "--package", rec.Package, "--olm", "v0", "--version", "1.x"}, "--version is a ClusterExtension field"},
		{[]string{"resolve", catalog, "--package", rec.Package, "--olm", "v0", "--channel", "a", "--channel", "b"}, "names one channel, not 2"},
		{[]string{"resolve", catalog, "--package", rec.Package, "--olm", "v2"}, "--olm must be v1 or v0"},
		{[]string{"resolve", catalog, "--queries", recorded, "--package", "x"}, "--package is a field of each query"},
		{[]string{"resolve", catalog, "--queries", filepath.Join(t.TempDir(), "none.jsonl")}, "--queries: open"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) || !strings.HasPrefix(errs, "olmcat: ") {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, errs)
		}
	}
	bad := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(bad, []byte("{\"package\":\"p\"}\n\n{\"package\":\"p\",\"channel\":\"c\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "resolve", catalog, "--queries", bad)
	if want := bad + `:3: unknown field "channel"`; code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("bad query line: exit %d, want 2 and %q:\n%s", code, want, errs)
	}
}

// An index.db resolves as the FBC olmcat migrate makes of it: the same answers, query for query.
func TestResolveIndexDBAsFBC(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog")
	mustRun(t, "migrate", "../../fixtures/index.db", catalog)
	var queries []string
	var listed struct {
		Packages []struct {
			Name string `json:"name"`
		} `json:"packages"`
	}
	out := mustRun(t, "inspect", "packages", catalog, "-o", "json")
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("inspect packages -o json: %v:\n%s", err, out)
	}
	pkgs := listed.Packages
	if len(pkgs) == 0 {
		t.Fatal("no package in the fixture")
	}
	for _, p := range pkgs {
		queries = append(queries, `{"package":"`+p.Name+`"}`)
	}
	qfile := filepath.Join(dir, "q.jsonl")
	if err := os.WriteFile(qfile, []byte(strings.Join(queries, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	picks := mustRun(t, "resolve", catalog, "--queries", qfile)
	// the picks installed, upgrades asked of both forms
	queries = queries[:0]
	for _, line := range strings.Split(strings.TrimSpace(picks), "\n") {
		var a struct {
			Package string `json:"package"`
			Bundle  string `json:"bundle"`
		}
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, line)
		if a.Bundle != "" {
			queries = append(queries, `{"package":"`+a.Package+`","installed":{"name":"`+a.Bundle+`"}}`)
		}
	}
	if err := os.WriteFile(qfile, []byte(strings.Join(queries, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFBC := mustRun(t, "resolve", catalog, "--queries", qfile)
	fromDB := mustRun(t, "resolve", "../../fixtures/index.db", "--queries", qfile)
	if fromFBC != fromDB || !strings.Contains(fromFBC, `"successors":[`) {
		t.Errorf("index.db and its FBC answer differently:\n%s\n---\n%s", fromDB, fromFBC)
	}
}
