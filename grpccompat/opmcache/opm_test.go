package opmcache

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// opmBin is the opm binary of OLMCAT_OPM_BIN (operator-registry v1.73.0, built beside the project),
// or a skip: `make test` needs no opm.
func opmBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("OLMCAT_OPM_BIN")
	if bin == "" {
		t.Skip("OLMCAT_OPM_BIN is not set: set it to an opm v1.73.0 binary to check olmcat's cache with opm itself")
	}
	return bin
}

func runOpm(t *testing.T, bin string, args ...string) error {
	t.Helper()
	var stderr bytes.Buffer
	// No pprof listener (opm's default is localhost:6060, shared by every run) and a termination
	// log of the test's own.
	args = append(args, "--pprof-addr=", "-t", filepath.Join(t.TempDir(), "termination-log"))
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return &opmError{err: err, stderr: stderr.String()}
	}
	return nil
}

type opmError struct {
	err    error
	stderr string
}

func (e *opmError) Error() string { return e.err.Error() + ": " + e.stderr }

// opmJSONCache has opm build its own json cache for configs: opm serves (and rebuilds in place)
// the format whose files it finds, so a directory holding an empty cache/ and an empty digest
// makes `opm serve --cache-only` rebuild a json cache there.
func opmJSONCache(t *testing.T, bin, configs string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "opm-cache")
	if err := mkdirAll(filepath.Dir(dir), filepath.Join("opm-cache", cacheSubdir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, digestFile), nil); err != nil {
		t.Fatal(err)
	}
	if err := runOpm(t, bin, "serve", configs, "--cache-dir", dir, "--cache-only"); err != nil {
		t.Fatalf("opm's own cache build: %v", err)
	}
	return dir
}

// opmCatalogs are the catalogs checked with opm: the one of this package's tests, the fixture
// catalog and every conformance catalog of ../shared (when present).
func opmCatalogs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"testdata/catalog": "testdata/catalog", "fixtures/catalog": "../../fixtures/catalog"}
	shared, _ := filepath.Glob("../../../shared/conformance/fbc/*/catalog")
	for _, c := range shared {
		out[strings.TrimPrefix(c, "../../../shared/")] = c
	}
	if len(shared) == 0 {
		t.Log("../shared/conformance/fbc is absent: checking this package's catalogs only")
	}
	return out
}

// TestOpmAcceptsAndWritesTheSame runs opm v1.73.0 itself: `opm serve --cache-only
// --cache-enforce-integrity` passes on the cache olmcat wrote, and opm's own json cache for the
// same catalog is the same, file for file and byte for byte (modes and digest included).
func TestOpmAcceptsAndWritesTheSame(t *testing.T) {
	bin := opmBin(t)
	for name, src := range opmCatalogs(t) {
		t.Run(name, func(t *testing.T) {
			configs := copyCatalog(t, src)
			ours := write(t, configs)
			if err := runOpm(t, bin, "serve", configs, "--cache-dir", ours, "--cache-only", "--cache-enforce-integrity"); err != nil {
				t.Fatalf("opm refuses olmcat's cache: %v", err)
			}
			theirs := opmJSONCache(t, bin, configs)
			want := manifest(t, theirs)
			diffLines(t, name, manifest(t, ours), want)
			if record := os.Getenv("OLMCAT_OPM_RECORD"); record != "" && name == "testdata/catalog" {
				header := "# opm v1.73.0's json cache for testdata/catalog (directories 0755, files 0644), written by\n" +
					"# `opm serve CONFIGS --cache-dir DIR --cache-only` (TestOpmAcceptsAndWritesTheSame, OLMCAT_OPM_RECORD)\n" +
					"# mode sha256 path\n"
				if err := os.WriteFile(record, []byte(header+strings.Join(want, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestOpmRefusesAChangedCatalog: the digest is opm's, so opm itself refuses the cache once a byte
// of the catalog changes.
func TestOpmRefusesAChangedCatalog(t *testing.T) {
	bin := opmBin(t)
	configs := copyCatalog(t, "testdata/catalog")
	ours := write(t, configs)
	path := filepath.Join(configs, "ignored.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	err = runOpm(t, bin, "serve", configs, "--cache-dir", ours, "--cache-only", "--cache-enforce-integrity")
	if err == nil || !strings.Contains(err.Error(), "integrity check failed") {
		t.Fatalf("opm on a changed catalog: %v, want an integrity failure", err)
	}
}
