package fbc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// naiveBlobs decodes every file under root the simple way, independently of the loader: JSON files
// with encoding/json's stream decoder, YAML files split on "---" lines. Each blob comes back as
// canonical JSON (sorted keys, numbers as written).
func naiveBlobs(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			dec := json.NewDecoder(bytes.NewReader(data))
			for {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				out = append(out, canonicalJSON(t, raw))
			}
			return nil
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			j, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out = append(out, canonicalJSON(t, j))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func canonicalJSON(t *testing.T, data []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("canonical JSON: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writtenBlobs writes the catalog as a JSON stream and returns its blobs as canonical JSON.
func writtenBlobs(t *testing.T, c *Catalog) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c, JSON); err != nil {
		t.Fatal(err)
	}
	var out []string
	dec := json.NewDecoder(&buf)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, canonicalJSON(t, raw))
	}
	slices.Sort(out)
	return out
}

func schemaCounts(t *testing.T, blobs []string) map[string]int {
	counts := map[string]int{}
	for _, b := range blobs {
		var head struct{ Schema string }
		if err := json.Unmarshal([]byte(b), &head); err != nil {
			t.Fatal(err)
		}
		counts[head.Schema]++
	}
	return counts
}

func loadedCounts(c *Catalog) map[string]int {
	counts := map[string]int{}
	add := func(schema string, n int) {
		if n > 0 {
			counts[schema] += n
		}
	}
	add(SchemaPackage, len(c.Packages))
	add(SchemaChannel, len(c.Channels))
	add(SchemaBundle, len(c.Bundles))
	add(SchemaDeprecations, len(c.Deprecations))
	for _, m := range c.Others {
		counts[m.Schema]++
	}
	return counts
}

func validCatalogDirs(t *testing.T) []string {
	dirs := conformanceGlob(t, "fbc/*/catalog")
	return append(dirs, migrateOutputDirs(t)...)
}

// Every valid catalog of the corpus loads without error, with as many blobs of each schema as a naive
// decode finds, and with every field (unknown ones, unknown property types, custom schemas) intact
// after a write.
func TestLoadConformanceCatalogs(t *testing.T) {
	for _, dir := range validCatalogDirs(t) {
		name, _ := filepath.Rel(conformanceDir, dir)
		t.Run(name, func(t *testing.T) {
			c, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveBlobs(t, dir)
			if diff := cmp.Diff(schemaCounts(t, want), loadedCounts(c)); diff != "" {
				t.Errorf("blob counts by schema (-naive +loaded):\n%s", diff)
			}
			if diff := cmp.Diff(want, writtenBlobs(t, c)); diff != "" {
				t.Errorf("blobs changed by load+write (-input +written):\n%s", diff)
			}
			checkLocations(t, dir, c)
		})
	}
}

// checkLocations verifies that every blob's location points at a line of its file that starts it:
// the opening brace of a JSON object, or a first key of a YAML document.
func checkLocations(t *testing.T, dir string, c *Catalog) {
	t.Helper()
	locs := []Location{}
	for _, p := range c.Packages {
		locs = append(locs, p.Loc)
	}
	for _, b := range c.Bundles {
		locs = append(locs, b.Loc)
	}
	for _, m := range c.Others {
		locs = append(locs, m.Loc)
	}
	lines := map[string][]string{}
	for _, loc := range locs {
		if _, ok := lines[loc.File]; !ok {
			data, err := os.ReadFile(filepath.Join(dir, loc.File))
			if err != nil {
				t.Fatalf("location %s: %v", loc, err)
			}
			lines[loc.File] = strings.Split(string(data), "\n")
		}
		ls := lines[loc.File]
		if loc.Line < 1 || loc.Line > len(ls) {
			t.Errorf("location %s is outside the file", loc)
			continue
		}
		l := ls[loc.Line-1]
		if !strings.HasPrefix(l, "{") && !regexp.MustCompile(`^[a-zA-Z"]`).MatchString(l) {
			t.Errorf("location %s points at %q, not at a blob start", loc, l)
		}
		if loc.Line > 1 && !strings.HasPrefix(l, "{") && ls[loc.Line-2] != "---" {
			t.Errorf("location %s: YAML blob line %q does not follow a --- line", loc, l)
		}
	}
}

// WalkPackages hands over, package by package, exactly what Load gives split by package.
func TestWalkPackagesMatchesLoad(t *testing.T) {
	for _, dir := range validCatalogDirs(t) {
		c, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := SplitByPackage(c)
		i := 0
		if err := WalkPackages(dir, func(pkg string, got *Catalog) error {
			if i >= len(want) || want[i].Package != pkg {
				t.Fatalf("%s: package #%d is %q, want the order of SplitByPackage", dir, i, pkg)
			}
			if a, b := catalogFingerprint(t, want[i].Catalog), catalogFingerprint(t, got); a != b {
				t.Errorf("%s: package %q differs from Load's:\n%s\nvs\n%s", dir, pkg, a, b)
			}
			i++
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if i != len(want) {
			t.Errorf("%s: %d packages handed over, want %d", dir, i, len(want))
		}
	}
}

// catalogFingerprint is the written catalog plus every blob location, in load order.
func catalogFingerprint(t *testing.T, c *Catalog) string {
	var buf bytes.Buffer
	if err := Write(&buf, c, JSON); err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, p := range c.Packages {
		locs = append(locs, p.Loc.String())
	}
	for _, ch := range c.Channels {
		locs = append(locs, ch.Loc.String())
	}
	for _, b := range c.Bundles {
		locs = append(locs, b.Loc.String())
	}
	for _, d := range c.Deprecations {
		locs = append(locs, d.Loc.String())
	}
	for _, m := range c.Others {
		locs = append(locs, m.Loc.String())
	}
	return strings.Join(locs, " ") + "\n" + buf.String()
}

// Every invalid case whose problem is a parse failure gives a located error; opm reports the same
// line (for YAML, opm's line is relative to the document, which starts after its "---" line).
// The other invalid cases are semantic problems: they load.
func TestLoadInvalidConformanceCases(t *testing.T) {
	parseFailures := map[string]bool{"bad-yaml": true, "malformed-json": true}
	for _, dir := range conformanceGlob(t, "invalid/*/catalog") {
		caseName := filepath.Base(filepath.Dir(dir))
		_, err := Load(dir)
		if !parseFailures[caseName] {
			if err != nil {
				t.Errorf("%s: semantic case should load, got %v", caseName, err)
			}
			continue
		}
		var errs *LoadErrors
		if !errors.As(err, &errs) || len(errs.Errs) != 1 {
			t.Fatalf("%s: want exactly one *LoadError, got %v", caseName, err)
		}
		lerr := errs.Errs[0]
		if !errors.Is(lerr, ErrSyntax) {
			t.Errorf("%s: want a syntax error, got %v", caseName, lerr)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "demo", "catalog.*"))
		rel, _ := filepath.Rel(dir, files[0])
		wantLine := expectedParseErrorLine(t, caseName, files[0])
		if lerr.Loc.File != rel || lerr.Loc.Line != wantLine {
			t.Errorf("%s: error at %s, want %s:%d", caseName, lerr.Loc, rel, wantLine)
		}
		if !strings.HasPrefix(err.Error(), rel+":"+strconv.Itoa(wantLine)+": ") {
			t.Errorf("%s: message does not start with the location: %q", caseName, err.Error())
		}
	}
}

func expectedParseErrorLine(t *testing.T, caseName, file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	switch caseName {
	case "malformed-json": // the truncated blob starts at the last top-level "{"
		last := 0
		for i, l := range lines {
			if strings.HasPrefix(l, "{") {
				last = i + 1
			}
		}
		return last
	case "bad-yaml": // opm: "yaml: line N" counted from the line after the document's "---"
		verdict, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(file))), "validate.txt"))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`yaml: line (\d+):`).FindSubmatch(verdict)
		if m == nil {
			t.Fatalf("no yaml line in opm's verdict %q", verdict)
		}
		n, _ := strconv.Atoi(string(m[1]))
		sc := bufio.NewScanner(bytes.NewReader(data))
		lineNo, lastSep := 0, 0
		for sc.Scan() {
			lineNo++
			if sc.Text() == "---" && lineNo < n+lastSep+1 {
				lastSep = lineNo
			}
		}
		return lastSep + n
	}
	t.Fatalf("no expectation for %s", caseName)
	return 0
}

// With DeferBundle, every bundle comes undecoded with its name, package and location, and decodes
// to what Load gives.
func TestWalkPackagesDeferBundleMatchesLoad(t *testing.T) {
	for _, dir := range validCatalogDirs(t) {
		c, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := SplitByPackage(c)
		i := 0
		loader := Loader{DeferBundle: func(Blob) bool { return true }}
		if err := loader.WalkPackages(dir, func(pkg string, got *Catalog) error {
			if i >= len(want) || want[i].Package != pkg {
				t.Fatalf("%s: package #%d is %q, want the order of SplitByPackage", dir, i, pkg)
			}
			for j := range got.Bundles {
				b, w := &got.Bundles[j], want[i].Catalog.Bundles[j]
				if !b.Deferred() || b.Name != w.Name || b.Package != w.Package || b.Loc != w.Loc || b.Properties != nil {
					t.Fatalf("%s: deferred bundle %q (%v) is not %q of package %q at %s, undecoded", dir, b.Name, b.Deferred(), w.Name, w.Package, w.Loc)
				}
				if err := b.Decode(); err != nil || b.Deferred() {
					t.Fatalf("%s: %s: %v", dir, w.Name, err)
				}
			}
			if a, b := catalogFingerprint(t, want[i].Catalog), catalogFingerprint(t, got); a != b {
				t.Errorf("%s: package %q differs from Load's:\n%s\nvs\n%s", dir, pkg, a, b)
			}
			i++
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if i != len(want) {
			t.Errorf("%s: %d packages handed over, want %d", dir, i, len(want))
		}
	}
}
