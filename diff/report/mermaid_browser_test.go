package report_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// mermaidCLI finds mermaid-cli and a Chromium for it, for the opt-in browser tests
// (OLMCAT_BROWSER_TESTS=1; npm install -g @mermaid-js/mermaid-cli, Debian package chromium).
func mermaidCLI(t *testing.T) (mmdc, config string) {
	t.Helper()
	chromium := browserTest(t)
	mmdc, err := exec.LookPath("mmdc")
	if err != nil {
		t.Skip("browser test: no mmdc on PATH (npm install -g @mermaid-js/mermaid-cli)")
	}
	config = filepath.Join(t.TempDir(), "puppeteer.json")
	body := fmt.Sprintf(`{"executablePath": %q, "args": ["--no-sandbox", "--disable-gpu"]}`, chromium)
	if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return mmdc, config
}

var renderedNode = regexp.MustCompile(`<g class="node [^"]*" id="[^"]*flowchart-n(\d+)-\d+"[^>]*transform="translate\([-0-9.]+, ?([-0-9.]+)\)"`)

// Mermaid itself draws every picture of the largest pair's comment, and draws it in version order:
// each bundle (n0 the oldest) above the one before it.
func TestMarkdownMermaidRenders(t *testing.T) {
	mmdc, config := mermaidCLI(t)
	r, opts := openCommunity(t)
	blocks := mermaidBlocks(markdown(t, r, opts))
	if len(blocks) == 0 {
		t.Fatal("no pictures")
	}
	dir := t.TempDir()
	for i, b := range blocks {
		in, out := filepath.Join(dir, fmt.Sprintf("%d.mmd", i)), filepath.Join(dir, fmt.Sprintf("%d.svg", i))
		if err := os.WriteFile(in, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		msg, err := exec.CommandContext(ctx, mmdc, "-q", "-p", config, "-i", in, "-o", out).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("picture %d does not render: %v\n%s\n%s", i+1, err, msg, b)
			continue
		}
		svg, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		ys := map[int]float64{}
		for _, m := range renderedNode.FindAllStringSubmatch(string(svg), -1) {
			n, _ := strconv.Atoi(m[1])
			ys[n], _ = strconv.ParseFloat(m[2], 64)
		}
		if len(ys) == 0 {
			t.Errorf("picture %d: no nodes found in Mermaid's SVG", i+1)
		}
		for n := 1; n < len(ys); n++ {
			if ys[n] >= ys[n-1] {
				t.Errorf("picture %d: bundle n%d (y %.0f) not above n%d (y %.0f)", i+1, n, ys[n], n-1, ys[n-1])
			}
		}
	}
}
