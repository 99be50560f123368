package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const filterCorpus = conformance + "/filter"

func needFilterCorpus(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(filterCorpus, "input")); err != nil {
		t.Skipf("filter conformance corpus not found at %s (%v); it lives in /work/shared/conformance/filter", filterCorpus, err)
	}
}

// TestFilterCLI: a recorded case through the command: the catalog, the image list oc-mirror
// mirrors, and the report.
func TestFilterCLI(t *testing.T) {
	needFilterCorpus(t)
	dir := t.TempDir()
	out, imgs, rep := filepath.Join(dir, "out"), filepath.Join(dir, "images.txt"), filepath.Join(dir, "report.json")
	c := filepath.Join(filterCorpus, "package-min-max")
	code, stdout, stderr := runCLI(t, "filter", filepath.Join(filterCorpus, "input"), out, "--config", filepath.Join(c, "isc.yaml"), "--images", imgs, "--report", rep)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "kept 1 package, 3 channels, 9 bundles") {
		t.Errorf("summary: %s", stderr)
	}
	want, _ := os.ReadFile(filepath.Join(c, "expected", "related-images.txt"))
	got, err := os.ReadFile(imgs)
	if err != nil || string(got) != string(want) {
		t.Errorf("--images differs from oc-mirror's related-images.txt (%v):\n%s", err, got)
	}
	if _, err := os.Stat(filepath.Join(out, "multi-nic-cni-operator", "catalog.json")); err != nil {
		t.Error(err)
	}
	var r struct {
		Packages []struct {
			Package, DefaultChannel, DefaultChannelDecision string
			Channels                                        []struct {
				Channel, Head string
				Kept, Removed int
			}
		}
		Images []string
	}
	data, _ := os.ReadFile(rep)
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Packages) != 1 || r.Packages[0].DefaultChannelDecision != "kept" || len(r.Packages[0].Channels) != 3 || len(r.Images) != strings.Count(string(want), "\n") {
		t.Errorf("report %s", data)
	}
	for _, ch := range r.Packages[0].Channels {
		if ch.Head == "" || ch.Kept == 0 {
			t.Errorf("channel %+v", ch)
		}
	}
	mustRun(t, "validate", out)
}

// TestFilterRefuses: what oc-mirror refuses, and what it lets through silently, is exit 2 with one
// sentence naming the package and channel, and nothing is written.
func TestFilterRefuses(t *testing.T) {
	needFilterCorpus(t)
	input := filepath.Join(filterCorpus, "input")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--config", filepath.Join(filterCorpus, "channel-not-default-no-defaultchannel", "isc.yaml")}, []string{"infinispan", "stable", "set defaultChannel", "2.4.x"}},
		{[]string{"--package", "infinispan-operator"}, []string{"package infinispan-operator is not in", "infinispan"}},
		{[]string{"--channel", "infinispan/2.4.z"}, []string{"no channel 2.4.z"}},
		{[]string{"--package", "sailoperator", "--min-version", "sailoperator/stable=9.0.0"}, []string{"sailoperator", "stable", "minVersion 9.0.0"}},
		{[]string{"--package", "sailoperator", "--full", "--max-version", "sailoperator=1.0.0"}, []string{"full: true cannot be combined"}},
		{[]string{"--package", "a", "--config", "x.yaml"}, []string{"not both"}},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := runCLI(t, append([]string{"filter", input, out}, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", tc.args, code, stderr)
		}
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "olmcat: ") {
			t.Errorf("%v: not one olmcat: sentence:\n%s", tc.args, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q does not say %q", tc.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
	}
}

// TestFilterToSQLiteAndImagesOnStdout: --to sqlite writes an index.db that olmcat reads back with
// the kept bundles; --images - lists the images on stdout.
func TestFilterToSQLiteAndImagesOnStdout(t *testing.T) {
	needFilterCorpus(t)
	db := filepath.Join(t.TempDir(), "index.db")
	c := filepath.Join(filterCorpus, "heads-two-packages")
	code, stdout, stderr := runCLI(t, "filter", filepath.Join(filterCorpus, "input"), db, "--to", "sqlite", "--config", filepath.Join(c, "isc.yaml"), "--images", "-")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want, _ := os.ReadFile(filepath.Join(c, "expected", "related-images.txt"))
	if stdout != string(want) {
		t.Errorf("--images - printed:\n%s", stdout)
	}
	fbcOut := filepath.Join(t.TempDir(), "back")
	mustRun(t, "migrate", db, fbcOut)
	got, _ := os.ReadFile(filepath.Join(fbcOut, "koku-metrics-operator", "catalog.json"))
	if !strings.Contains(string(got), `"schema": "olm.bundle"`) {
		t.Errorf("index.db does not hold koku-metrics-operator's bundle")
	}
}

// TestFilterReadmeConfig: the ImageSetConfiguration the README shows is the one its examples run.
func TestFilterReadmeConfig(t *testing.T) {
	readme, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	isc, err := os.ReadFile("testdata/readme/imageset-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```yaml\n"+string(isc)+"```") {
		t.Error("README's \"Mirroring a subset\" does not show testdata/readme/imageset-config.yaml as it is")
	}
}

// TestFilterImagesIsAnOutput: --images goes through the output guard: never into an input, never
// the report or inside OUT.
func TestFilterImagesIsAnOutput(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "catalog")
	copyDir(t, "../../fixtures/catalog", input)
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"--images", filepath.Join(input, "images.txt")},
		{"--images", filepath.Join(out, "images.txt")},
		{"--images", filepath.Join(dir, "r.json"), "--report", filepath.Join(dir, "r.json")},
		{"--images", "-", "--report", "-"},
	} {
		code, _, stderr := runCLI(t, append([]string{"filter", input, out}, args...)...)
		if code != 2 || !strings.HasPrefix(stderr, "olmcat: ") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", args, out)
		}
	}
	if _, err := os.Stat(filepath.Join(input, "images.txt")); err == nil {
		t.Error("wrote into the input")
	}
}

// Heads-only decodes only the kept bundles of an FBC directory: a bundle it leaves out may have a
// field of the wrong type; with --full (every bundle kept) the same catalog does not load.
func TestFilterDecodesOnlyKeptBundles(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "catalog")
	copyDir(t, "../../fixtures/catalog", input)
	file := filepath.Join(input, "operator-000", "catalog.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(data), `"image": "quay.io/generated/operator-000-bundle:v1.0.0",`, `"image": 7,`, 1)
	if broken == string(data) {
		t.Fatal("the fixture's operator-000.v1.0.0 bundle blob has changed: update the test")
	}
	if err := os.WriteFile(file, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "filter", input, filepath.Join(dir, "heads"), "--package", "operator-000")
	if code != 0 {
		t.Fatalf("heads-only: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, "filter", input, filepath.Join(dir, "full"), "--package", "operator-000", "--full")
	if code != 2 || !strings.Contains(stderr, `bundle "operator-000.v1.0.0": cannot decode the blob: field "image"`) {
		t.Errorf("--full: exit %d\n%s", code, stderr)
	}
}

// TestFilterBundleFlag: --bundle keeps the named bundle in each channel that has it, and says on
// stderr which bundles it kept beyond the selection; a name the package lacks is exit 2.
func TestFilterBundleFlag(t *testing.T) {
	needFilterCorpus(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "filter", filepath.Join(filterCorpus, "input"), out,
		"--bundle", "sailoperator/sailoperator.v1.26.1", "--bundle", "sailoperator/sailoperator.v1.28.0", "--images", "-")
	if code != 0 || !strings.Contains(stdout, "quay.io/community-operator-pipeline-prod/sailoperator:1.26.1\n") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "kept 1 package, 3 channels, 8 bundles (6 added to keep upgrade paths)") ||
		!strings.Contains(stderr, "channel stable: kept sailoperator.v1.27.0 beyond the selection: the channel needs one head") {
		t.Errorf("stderr:\n%s", stderr)
	}
	code, _, stderr = runCLI(t, "filter", filepath.Join(filterCorpus, "input"), filepath.Join(dir, "other"), "--bundle", "sailoperator/sailoperator.v1.27.9")
	if code != 2 || !strings.Contains(stderr, "has no bundle sailoperator.v1.27.9") {
		t.Errorf("unknown bundle: exit %d\n%s", code, stderr)
	}
}
