package main

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// TestAddBundleImagesEqualsAddDirs: adding the conformance bundles by image reference (registry,
// OCI layout, docker archive) to an FBC and to an index.db gives the same catalog, rendered, as
// adding their directories with --image set to those references.
func TestAddBundleImagesEqualsAddDirs(t *testing.T) {
	host := imagetest.Registry(t)
	var dirs, refs, dirArgs []string
	for i, dir := range conformanceBundleDirs(t) {
		ref := bundleImageRefs(t, host, dir)[i%4]
		dirs, refs = append(dirs, dir), append(refs, ref)
		dirArgs = append(dirArgs, "--image", ref)
	}
	tmp := t.TempDir()
	for _, c := range []struct {
		name, catalog, outFlag string
	}{
		{"fbc", "../../fixtures/catalog", "--output-dir"},
		{"index.db", "../../fixtures/index.db", "--output-db"},
	} {
		t.Run(c.name, func(t *testing.T) {
			byImage, byDir := filepath.Join(tmp, c.name+"-image"), filepath.Join(tmp, c.name+"-dir")
			code, _, stderr := runCLI(t, append(append([]string{"add", c.catalog}, refs...), "--mode", "semver", c.outFlag, byImage)...)
			if code != 0 {
				t.Fatalf("add by image: exit %d\n%s", code, stderr)
			}
			args := append(append(append([]string{"add", c.catalog}, dirs...), dirArgs...), "--mode", "semver", c.outFlag, byDir)
			if code, _, stderr := runCLI(t, args...); code != 0 {
				t.Fatalf("add by directory: exit %d\n%s", code, stderr)
			}
			got, want := mustRun(t, "render", byImage), mustRun(t, "render", byDir)
			if got != want {
				t.Errorf("adding by image differs from adding the directories with --image:\n%s", diffJSONText(got, want))
			}
			for _, ref := range refs {
				if !strings.Contains(got, `"image": "`+ref+`"`) {
					t.Errorf("no bundle with image %s in the result", ref)
				}
			}
		})
	}
}

func tarOf(t *testing.T, entries ...tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		body := ""
		if h.Typeflag == tar.TypeReg {
			body = "kind: ConfigMap\n"
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	return buf.Bytes()
}

// TestHostileAndForeignBundleImages: bundle images whose layers escape, and images that are not
// bundle images, are input errors (exit 2) in every command that takes a bundle image, and the
// first line names the reference and says what is wrong.
func TestHostileAndForeignBundleImages(t *testing.T) {
	host := imagetest.Registry(t)
	labels := map[string]string{"operators.operatorframework.io.bundle.package.v1": "demo"}
	dir := func(n string) tar.Header { return tar.Header{Typeflag: tar.TypeDir, Name: n, Mode: 0o755} }
	reg := func(n string) tar.Header { return tar.Header{Typeflag: tar.TypeReg, Name: n, Mode: 0o644} }
	link := func(n, target string) tar.Header {
		return tar.Header{Typeflag: tar.TypeSymlink, Name: n, Linkname: target, Mode: 0o777}
	}
	meta := []tar.Header{dir("metadata/"), reg("metadata/annotations.yaml")}
	cases := []struct {
		name   string
		layer  []byte
		labels map[string]string
		want   string
	}{
		{"path-escape", tarOf(t, append(meta, dir("manifests/"), reg("manifests/../../../tmp/evil.yaml"))...), labels, `unsafe layer entry: path contains ".."`},
		{"link-out", tarOf(t, append(meta, dir("manifests/"), link("manifests/csv.yaml", "/etc/passwd"))...), labels, "points outside the bundle path /manifests"},
		{"hard-link-out", tarOf(t, append(meta, dir("manifests/"), tar.Header{Typeflag: tar.TypeLink, Name: "manifests/x", Linkname: "etc/shadow"})...), labels, "points outside the bundle path /manifests"},
		{"no-labels", tarOf(t, meta...), nil, "operators.operatorframework.io.bundle.package.v1 label"},
		{"other-labels", tarOf(t, meta...), map[string]string{"vendor": "acme"}, "Its labels: vendor."},
	}
	for _, c := range cases {
		ref := host + "/ns/" + c.name + ":v1"
		imagetest.Push(t, ref, imagetest.TarImage(t, c.layer, c.labels))
		for _, args := range [][]string{
			{"render", ref},
			{"bundle", "render", ref},
			{"add", "../../fixtures/catalog", ref, "--output-dir", filepath.Join(t.TempDir(), "out")},
			{"validate", "bundle", ref},
		} {
			code, _, stderr := runCLI(t, args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || !strings.HasPrefix(first, "olmcat: "+ref+": bad image: ") || !strings.Contains(first, c.want) {
				t.Errorf("%s: olmcat %s: exit %d, first line %q; want exit 2 and %q", c.name, args[0], code, first, c.want)
			}
		}
	}
	// A bundle image whose bundle is broken is named by its reference, not by a scratch directory.
	noCSV := host + "/ns/no-csv:v1"
	annotations := "annotations:\n  operators.operatorframework.io.bundle.package.v1: demo\n  operators.operatorframework.io.bundle.channels.v1: alpha\n"
	imagetest.Push(t, noCSV, imagetest.Image(t, map[string][]byte{"manifests/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"),
		"metadata/annotations.yaml": []byte(annotations)}, labels))
	if code, _, stderr := runCLI(t, "render", noCSV); code != exitUsage || !strings.HasPrefix(stderr, "olmcat: "+noCSV+": bad bundle: no ClusterServiceVersion") {
		t.Errorf("bundle image without a CSV: exit %d\n%s", code, stderr)
	}
	missing := "oci-layout:" + filepath.Join(t.TempDir(), "nothing")
	if code, _, stderr := runCLI(t, "bundle", "render", missing); code != exitUsage || !strings.Contains(stderr, missing+": not found") {
		t.Errorf("missing layout: exit %d\n%s", code, stderr)
	}
}

// TestValidateBundleImage: validate bundle reads a bundle image and checks its labels against
// annotations.yaml; render and add warn about a disagreeing label (opm reads annotations.yaml),
// bundle render --strict refuses it.
func TestValidateBundleImage(t *testing.T) {
	dir := filepath.Join(conformance, "bundles", "etcd-0.9.4", "bundle")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("conformance bundle absent: %v", err)
	}
	host := imagetest.Registry(t)
	good := bundleImageRefs(t, host, dir)[2]
	if code, stdout, stderr := runCLI(t, "validate", "bundle", good); code != 0 {
		t.Errorf("validate bundle %s: exit %d\n%s%s", good, code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "validate", "bundle", good, "--labels", "x"); code != exitUsage || !strings.Contains(stderr, "own labels") {
		t.Errorf("--labels with an image: exit %d\n%s", code, stderr)
	}
	if code, stdout, _ := runCLI(t, "validate", "bundle", dir, "--image", good); code != 0 {
		t.Errorf("validate bundle DIR --image oci-layout: exit %d\n%s", code, stdout)
	}

	labels := imagetest.Annotations(t, dir)
	labels["operators.operatorframework.io.bundle.channels.v1"] = "beta"
	bad := host + "/ns/etcd-relabelled:v1"
	imagetest.Push(t, bad, imagetest.LabelledBundleImage(t, dir, labels))
	code, stdout, _ := runCLI(t, "validate", "bundle", bad)
	if code != exitFindings || !strings.Contains(stdout, `label operators.operatorframework.io.bundle.channels.v1 is "beta" in image `+bad) {
		t.Errorf("validate of a relabelled image: exit %d\n%s", code, stdout)
	}
	code, out, stderr := runCLI(t, "render", bad)
	if code != 0 || !strings.Contains(stderr, "olmcat: warning: "+bad+"/metadata/annotations.yaml: label operators.operatorframework.io.bundle.channels.v1") {
		t.Errorf("render of a relabelled image: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(out, `"image": "`+bad+`"`) {
		t.Error("relabelled image not rendered")
	}
	if code, _, _ := runCLI(t, "bundle", "render", bad, "--strict"); code != exitFindings {
		t.Errorf("bundle render --strict of a relabelled image: exit %d, want 1", code)
	}
}
