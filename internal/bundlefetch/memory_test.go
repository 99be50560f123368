package bundlefetch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/fixtures/procstat"
	"github.com/olmcat/olmcat/internal/imagetest"
)

// Issue 26 item 6: a basic template's peak memory depends on how many images are pulled at once,
// not on how many it names. Each measurement is a child process (this test binary) that renders
// a basic template of N images, each a tag of one small bundle image served by an in-process
// registry (imagetest.AliasRegistry), through a Fetcher and template.RenderStreamed as
// render-template does, and writes it to io.Discard; its peak RSS is read from its rusage.

// tinyBundle is a small bundle: a CSV with a 16 kB description (as long as many real ones), and a
// CRD it owns; rendered, about 30 kB.
func tinyBundle(tb testing.TB) (map[string][]byte, map[string]string) {
	labels := map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1": "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":  "metadata/",
		"operators.operatorframework.io.bundle.package.v1":   "tiny",
		"operators.operatorframework.io.bundle.channels.v1":  "stable",
	}
	var ann strings.Builder
	ann.WriteString("annotations:\n")
	for _, k := range []string{"operators.operatorframework.io.bundle.mediatype.v1", "operators.operatorframework.io.bundle.manifests.v1",
		"operators.operatorframework.io.bundle.metadata.v1", "operators.operatorframework.io.bundle.package.v1", "operators.operatorframework.io.bundle.channels.v1"} {
		fmt.Fprintf(&ann, "  %s: %s\n", k, labels[k])
	}
	csv := "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: tiny.v0.0.1\n" +
		"spec:\n  version: 0.0.1\n  displayName: Tiny\n  description: '" + strings.Repeat("A small operator for memory tests. ", 480) + "'\n" +
		"  customresourcedefinitions:\n    owned:\n    - name: things.tiny.example.com\n      kind: Thing\n      version: v1\n" +
		"  install:\n    strategy: deployment\n    spec:\n      deployments:\n      - name: tiny\n        spec:\n          template:\n            spec:\n              containers:\n              - name: manager\n                image: quay.io/tiny/manager:v0.0.1\n"
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.tiny.example.com\nspec:\n  group: tiny.example.com\n" +
		"  names:\n    kind: Thing\n    plural: things\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
	return map[string][]byte{
		"metadata/annotations.yaml":                 []byte(ann.String()),
		"manifests/tiny.clusterserviceversion.yaml": []byte(csv),
		"manifests/things.tiny.example.com.yaml":    []byte(crd),
	}, labels
}

// basicTemplate names n images of repo on host, tags v0 to v(n-1).
func basicTemplate(host string, n int) string {
	var b strings.Builder
	b.WriteString("schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: tiny\n  defaultChannel: stable\n")
	b.WriteString("- schema: olm.channel\n  package: tiny\n  name: stable\n  entries:\n  - name: tiny.v0.0.1\n")
	for i := range n {
		fmt.Fprintf(&b, "- schema: olm.bundle\n  image: %s/tiny:v%d\n", host, i)
	}
	return b.String()
}

// measureTemplateMemory renders a basic template of n images in a child process; batch renders
// it as before streaming (template.Render, then Write).
func measureTemplateMemory(t *testing.T, host string, n int, batch bool) procstat.ChildRun {
	t.Helper()
	file := filepath.Join(t.TempDir(), "template.yaml")
	if err := os.WriteFile(file, []byte(basicTemplate(host, n)), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := procstat.RunChild("TestTemplateMemoryChild", "OLMCAT_MEMORY_CHILD="+file, "OLMCAT_MEMORY_BATCH="+strconv.FormatBool(batch))
	if err != nil {
		t.Fatalf("rendering %d images: %v", n, err)
	}
	return run
}

// TestTemplateMemoryChild is one measured process of the memory tests.
func TestTemplateMemoryChild(t *testing.T) {
	file := os.Getenv("OLMCAT_MEMORY_CHILD")
	if file == "" {
		t.Skip("run by TestTemplateMemoryDoesNotGrowWithLength")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := template.Parse("", data)
	if err != nil {
		t.Fatal(err)
	}
	data = nil
	f := newFetcherTB(t, Options{Parallel: DefaultParallel})
	w := bufio.NewWriter(io.Discard)
	if os.Getenv("OLMCAT_MEMORY_BATCH") == "true" {
		cat, err := template.Render(context.Background(), tmpl, f, template.Options{})
		if err == nil {
			err = template.Write(w, cat, template.OutputJSON)
		}
		if err != nil {
			t.Fatal(err)
		}
		procstat.ReportOwnPeak(os.Stderr)
		return
	}
	r, err := template.RenderStreamed(context.Background(), tmpl, f, template.Options{}, template.OutputJSON)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Write(w); err != nil {
		t.Fatal(err)
	}
	procstat.ReportOwnPeak(os.Stderr)
}

// TestTemplateMemoryDoesNotGrowWithLength renders basic templates of 300 and 1,500 images
// (make test, about 20 seconds), and of 20,000 with OLMCAT_LONG_TESTS=1 or make hostile's
// OLMCAT_HOSTILE=full: the longer template may take no more than 20 MB more (the blobs a spool
// keeps in memory before it spools them to disk, 4 MiB, the template itself, and the garbage
// collector's slack), where holding
// every bundle took about 54 kB more per image of this bundle (65 MB more for 1,200 images);
// 20,000 images stay under 300 MB.
// OLMCAT_MEMORY_BATCH_TOO=1 also measures the long form as it was before streaming.
func TestTemplateMemoryDoesNotGrowWithLength(t *testing.T) {
	if testing.Short() {
		t.Skip("renders thousands of bundles")
	}
	files, labels := tinyBundle(t)
	host := imagetest.AliasRegistry(t, "tiny", imagetest.Image(t, files, labels))
	small := measureTemplateMemory(t, host, 300, false)
	large := measureTemplateMemory(t, host, 1500, false)
	t.Logf("300 images: wall %v, cpu %v, peak RSS %.0f MB; 1,500 images: wall %v, cpu %v, peak RSS %.0f MB",
		small.Wall.Round(time.Millisecond), small.CPU.Round(time.Millisecond), small.RSSMB,
		large.Wall.Round(time.Millisecond), large.CPU.Round(time.Millisecond), large.RSSMB)
	if large.RSSMB > small.RSSMB+20 {
		t.Errorf("peak RSS grew from %.0f MB (300 images) to %.0f MB (1,500 images): memory grows with the template's length", small.RSSMB, large.RSSMB)
	}
	if os.Getenv("OLMCAT_LONG_TESTS") != "1" && os.Getenv("OLMCAT_HOSTILE") != "full" {
		return
	}
	huge := measureTemplateMemory(t, host, 20000, false)
	t.Logf("20,000 images: wall %v, cpu %v, peak RSS %.0f MB", huge.Wall.Round(time.Millisecond), huge.CPU.Round(time.Millisecond), huge.RSSMB)
	if huge.RSSMB > 300 {
		t.Errorf("peak RSS %.0f MB rendering 20,000 images, more than 300 MB", huge.RSSMB)
	}
	if os.Getenv("OLMCAT_MEMORY_BATCH_TOO") == "1" {
		for _, n := range []int{300, 1500, 20000} {
			b := measureTemplateMemory(t, host, n, true)
			t.Logf("before streaming (Render, then Write), %d images: wall %v, cpu %v, peak RSS %.0f MB", n, b.Wall.Round(time.Millisecond), b.CPU.Round(time.Millisecond), b.RSSMB)
		}
	}
}
