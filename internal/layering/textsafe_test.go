package layering

import (
	"os/exec"
	"strings"
	"testing"
)

// escapers are the standard library's markup escapers. A writer that escapes catalog text with one
// of them leaves control characters raw (ESC makes an SVG ill-formed XML, a bidi override reorders
// what a reviewer reads): catalog text is escaped in one place, internal/textsafe, one function per
// output context (issue 26).
var escapers = map[string]bool{"html": true, "encoding/xml": true}

// TestMarkupEscapedThroughTextsafe fails when a package that writes reports or pictures (diff/...,
// fbc/template, cmd/olmcat) imports html or encoding/xml outside its tests; html/template is
// allowed, since diff -o html filters its page through textsafe.XMLDocument.
func TestMarkupEscapedThroughTextsafe(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	writers := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if !strings.HasPrefix(pkg, "diff") && pkg != "fbc/template" && pkg != "cmd/olmcat" {
			continue
		}
		writers++
		for _, imp := range fields[1:] {
			if escapers[imp] {
				t.Errorf("%s imports %s: escape catalog text with internal/textsafe", pkg, imp)
			}
		}
	}
	if writers < 4 {
		t.Fatalf("found %d report and picture writers; the check looks at nothing", writers)
	}
}
