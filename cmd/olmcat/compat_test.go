package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const compatCorpus = conformance + "/sqlite"

func compatCase(t *testing.T, name string) (db, fbcDir string) {
	t.Helper()
	dir := filepath.Join(compatCorpus, name)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", dir, err)
	}
	return filepath.Join(dir, "input.db"), filepath.Join(dir, "migrate")
}

type compatJSON struct {
	Verdict string
	Total   struct{ Calls, Equal, Normalized, Different, Errors int }
}

func TestCompatExitCodesAndFormats(t *testing.T) {
	db, migrated := compatCase(t, "kube-green-replaces")
	out, code := runCommand(t, "compat", db, migrated)
	if code != 0 || !strings.Contains(out, "EQUAL: 48 calls") || !strings.Contains(out, "GetBundleForChannel") {
		t.Errorf("equal pair: exit %d\n%s", code, out)
	}
	out, code = runCommand(t, "compat", db, migrated, "--strict", "-o", "json")
	var r compatJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("JSON report does not parse: %v\n%s", err, out)
	}
	if code != 1 || r.Verdict != "different" || r.Total.Calls != 48 || r.Total.Normalized != 0 {
		t.Errorf("--strict: exit %d, %+v", code, r)
	}
	out, code = runCommand(t, "compat", db, migrated, "--normalize", "all,-plural", "-o", "markdown")
	if code != 1 || !strings.Contains(out, "gRPC parity: different") || !strings.Contains(out, "<details>") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
	// Both sides declared FBC: no SQLite-vs-FBC normalization, so they differ.
	out, code = runCommand(t, "compat", db, migrated, "--left-kind", "fbc", "-o", "json")
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || r.Verdict != "different" {
		t.Errorf("--left-kind fbc: exit %d, %+v, %v", code, r, err)
	}
	out, code = runCommand(t, "compat", db, migrated, "--sample", "10", "--seed", "3", "-o", "json")
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 || r.Total.Calls != 10 {
		t.Errorf("--sample 10: exit %d, %+v, %v", code, r, err)
	}
}

func TestCompatPlanFiles(t *testing.T) {
	db, migrated := compatCase(t, "real-foo-index-v0.2.0")
	saved := filepath.Join(t.TempDir(), "plan.json")
	if out, code := runCommand(t, "compat", db, migrated, "--save-plan", saved); code != 0 {
		t.Fatalf("--save-plan: exit %d\n%s", code, out)
	}
	var got, want []map[string]any
	for path, into := range map[string]*[]map[string]any{saved: &got, filepath.Join(filepath.Dir(db), "grpc", "plan.json"): &want} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("saved plan has %d calls, the corpus plan %d", len(got), len(want))
	}
	out, code := runCommand(t, "compat", db, migrated, "--plan", saved, "--save-plan", saved)
	if code != 2 || !strings.Contains(out, "--force") && !strings.Contains(out, "exists") {
		t.Errorf("--save-plan over an existing file: exit %d\n%s", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[{"id": "1", "method": "api.Registry/GetBundle", "request": {"pkg": 1}}]`), 0o644)
	if out, code := runCommand(t, "compat", db, migrated, "--plan", bad); code != 2 || !strings.Contains(out, "bad.json") {
		t.Errorf("bad plan: exit %d\n%s", code, out)
	}
}

func TestCompatUsageAndInputErrors(t *testing.T) {
	db, migrated := compatCase(t, "real-foo-index-v0.2.0")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := "grpc://" + closed.Addr().String()
	closed.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compat", db}, "LEFT and RIGHT"},
		{[]string{"compat", db, migrated, "--normalize", "plurals"}, "unknown normalization"},
		{[]string{"compat", db, migrated, "-o", "xml"}, "-o must be"},
		{[]string{"compat", db, filepath.Join(t.TempDir(), "missing")}, ": not found: no such file or directory"},
		{[]string{"compat", closedAddr, migrated}, "left side: cannot reach"},
		{[]string{"compat", db, migrated, "--timeout", "0s"}, "--timeout"},
		{[]string{"compat", db, migrated, "--left-kind", "mysql"}, "unknown catalog kind"},
	} {
		out, code := runCommand(t, tc.args...)
		if code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q in:\n%s", tc.args[1:], code, tc.want, out)
		}
	}
}
