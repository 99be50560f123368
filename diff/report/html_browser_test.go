package report_test

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/olmcat/olmcat/diff/report"
)

// browserTest finds headless Chromium for the opt-in browser tests (OLMCAT_BROWSER_TESTS=1; Debian
// package chromium).
func browserTest(t *testing.T) string {
	t.Helper()
	if os.Getenv("OLMCAT_BROWSER_TESTS") != "1" {
		t.Skip("browser test: set OLMCAT_BROWSER_TESTS=1 and install chromium to run it")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if bin, err := exec.LookPath(name); err == nil {
			return bin
		}
	}
	t.Skip("browser test: no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

// screenshot has headless Chromium render a page and returns the decoded PNG.
func screenshot(t *testing.T, bin, page string, width, height int) image.Image {
	t.Helper()
	dir := t.TempDir()
	html, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.png")
	if err := os.WriteFile(html, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Without the background-networking flags Chromium tries to reach Google and, on a closed
	// network, fails; --user-data-dir keeps it away from any profile of the user running the test.
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--force-device-scale-factor=1", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "file://"+html)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is no PNG: %v", err)
	}
	t.Logf("screenshot %s", shot)
	return img
}

// The HTML report of host-operator-replace-bundle (the channel's only bundle replaced by one that
// does not upgrade from it) rendered by a real browser: the page is drawn, and the stranded old
// head is highlighted in orange (#fb8500) as a box as wide as the bundle's name, which the legend's
// small sample is not.
func TestHTMLInBrowser(t *testing.T) {
	bin := browserTest(t)
	page, _ := htmlOfPair(t, "sqlite/host-operator-replace-bundle")
	img := screenshot(t, bin, page, 1400, 1400)
	b := img.Bounds()
	if b.Dx() != 1400 || b.Dy() != 1400 {
		t.Fatalf("screenshot is %v", b)
	}
	inked, longestOrange := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		run := 0
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			if r < 245 || g < 245 || bl < 245 {
				inked++
			}
			if near(r, 0xfb) && near(g, 0x85) && near(bl, 0x00) {
				run++
				longestOrange = max(longestOrange, run)
			} else {
				run = 0
			}
		}
	}
	share := float64(inked) / float64(b.Dx()*b.Dy())
	t.Logf("%.1f%% of the page not white; longest run of stranded orange %d pixels", 100*share, longestOrange)
	if share < 0.05 {
		t.Errorf("only %.1f%% of the page is not white: it did not render", 100*share)
	}
	if longestOrange < 300 {
		t.Errorf("the longest run of stranded orange is %d pixels: the stranded bundle is not highlighted", longestOrange)
	}
}

func near(v, want uint32) bool { return v+24 >= want && v <= want+24 }

// The HTML report of the largest pair in a real browser, 1400 px wide: with info findings and
// info-only packages collapsed and one legend, the page is under 6,000 px high (it was 11,993).
func TestHTMLPageHeightInBrowser(t *testing.T) {
	bin := browserTest(t)
	r, opts := openCommunity(t)
	var b strings.Builder
	if err := report.HTML(&b, r, modelOf(opts.Old.Catalog), modelOf(opts.New.Catalog)); err != nil {
		t.Fatal(err)
	}
	img := screenshot(t, bin, b.String(), 1400, 16000)
	bounds, last := img.Bounds(), 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r>>8 < 240 || g>>8 < 240 || bl>>8 < 240 {
				last = y
				break
			}
		}
	}
	t.Logf("the page is %d px high", last)
	if last < 1000 || last > 6000 {
		t.Errorf("the page is %d px high, want 1,000 to 6,000", last)
	}
}
