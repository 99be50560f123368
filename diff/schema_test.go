package diff_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/report"
)

// SCHEMA.md documents every kind with the category, severity and rule the code gives it.
func TestSchemaDocumentsEveryRule(t *testing.T) {
	doc, err := os.ReadFile("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| (catalog|graph|validation) \\| (breaking|warning|info) \\| (.+) \\|$")
	documented := map[diff.Kind]diff.Rule{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		documented[diff.Kind(m[1])] = diff.Rule{Category: diff.Category(m[2]), Severity: diff.Severity(m[3]), Why: m[4]}
	}
	for kind, rule := range diff.Rules {
		if documented[kind] != rule {
			t.Errorf("SCHEMA.md row for %s = %+v, code says %+v", kind, documented[kind], rule)
		}
	}
	if len(documented) != len(diff.Rules) {
		t.Errorf("SCHEMA.md documents %d kinds, the code has %d", len(documented), len(diff.Rules))
	}
}

// The JSON output carries the schema version and the documented top-level fields, with arrays
// (never null) even when nothing changed.
func TestJSONShape(t *testing.T) {
	cat := loadCatalog(t, jaeger)
	r := diff.Compare(side("a", cat), side("b", cat))
	var buf bytes.Buffer
	if err := report.JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if string(doc["schemaVersion"]) != `"olmcat.diff/v1"` || string(doc["findings"]) != "[]" || string(doc["upgrades"]) != "[]" {
		t.Errorf("JSON: %s", buf.String())
	}
	for _, field := range []string{"old", "new", "summary", "packages"} {
		if _, ok := doc[field]; !ok {
			t.Errorf("JSON lacks %q", field)
		}
	}
}
