package template_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

func bundleJSON(name, version string) string {
	return `{"schema":"olm.bundle","name":"` + name + `","package":"p","image":"r/p:` + version +
		`","properties":[{"type":"olm.package","value":{"packageName":"p","version":"` + version + `"}}]}`
}

// TestWriteMermaid draws a channel as opm's mermaid writer does: entries by decreasing version,
// skips, then replaces; a deprecated bundle that is also skipped gets the combined class.
func TestWriteMermaid(t *testing.T) {
	stream := `{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","name":"stable","package":"p","entries":[{"name":"p.v1.0.0"},{"name":"p.v1.1.0","replaces":"p.v1.0.0"},{"name":"p.v1.2.0","replaces":"p.v1.1.0","skips":["p.v1.0.0"]}]}
` + bundleJSON("p.v1.0.0", "1.0.0") + bundleJSON("p.v1.1.0", "1.1.0") + bundleJSON("p.v1.2.0", "1.2.0") + `
{"schema":"olm.deprecations","package":"p","entries":[{"reference":{"schema":"olm.bundle","name":"p.v1.0.0"},"message":"old"}]}`
	cat, err := fbc.LoadReader(strings.NewReader(stream), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := template.Write(&out, cat, "mermaid"); err != nil {
		t.Fatal(err)
	}
	want := `graph LR
  classDef deprecated fill:#E8960F
  classDef skipped stroke:#FF0000,stroke-width:4px
  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px
  %% package "p"
  subgraph "p"
    %% channel "stable"
    subgraph p-stable["stable"]
      p-stable-p.v1.2.0["p.v1.2.0"]
      p-stable-p.v1.0.0["p.v1.0.0"]-- skip --> p-stable-p.v1.2.0["p.v1.2.0"]
      p-stable-p.v1.1.0["p.v1.1.0"]-- replace --> p-stable-p.v1.2.0["p.v1.2.0"]
      p-stable-p.v1.1.0["p.v1.1.0"]
      p-stable-p.v1.0.0["p.v1.0.0"]-- replace --> p-stable-p.v1.1.0["p.v1.1.0"]
      p-stable-p.v1.0.0["p.v1.0.0"]
    end
  end
class p-stable-p.v1.0.0 deprecatedskipped
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestWriteRootOthersLast: blobs of other schemas that name no package come after every package,
// as opm writes them.
func TestWriteRootOthersLast(t *testing.T) {
	stream := `{"schema":"com.example.note","text":"x"}
{"schema":"olm.package","name":"p","defaultChannel":"stable"}`
	cat, err := fbc.LoadReader(strings.NewReader(stream), "catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := template.Write(&out, cat, "json"); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(out.String(), "olm.package"), strings.Index(out.String(), "com.example.note"); i < 0 || j < i {
		t.Errorf("order:\n%s", out.String())
	}
}
