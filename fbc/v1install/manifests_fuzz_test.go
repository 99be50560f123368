package v1install_test

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fbc/v1install"
)

// FuzzJudge feeds arbitrary manifests (as olm.bundle.object data) and arbitrary olm.csv.metadata
// to the install check: it never panics, a verdict is always given (OK or an error, with the gate
// too), an error at default gates is never empty, and judging twice gives the same verdict.
func FuzzJudge(f *testing.F) {
	f.Add([]byte(csvFixture{modes: allModes, deployments: []string{"op"}}.manifest()), []byte(`{"installModes":[{"type":"OwnNamespace","supported":true}]}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"ClusterServiceVersion","spec":{"installModes":[{"type":"AllNamespaces","supported":"yes"}]}}`), []byte(`null`))
	f.Add([]byte("kind: ClusterServiceVersion\napiVersion: v1\nspec:\n  installModes: []\n"), []byte(`{`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"ClusterServiceVersion","spec":{"webhookdefinitions":[{"type":"ConversionWebhook","conversionCRDs":[null,"a"]}],"install":null}}`), []byte(`[]`))
	f.Add([]byte(`{"kind":"ClusterServiceVersion","spec":{"a\u0041":1,"installModes":{}}}`), []byte(`{"apiServiceDefinitions":{"owned":[{}]}}`))
	f.Fuzz(func(t *testing.T, manifest, metadata []byte) {
		for _, b := range []*fbc.Bundle{
			{Name: "b", Package: "p", Properties: []fbc.Property{property.BuildBundleObject(manifest)}},
			{Name: "b", Package: "p", Properties: []fbc.Property{{Type: property.TypeCSVMetadata, Value: metadata}}},
		} {
			v := v1install.JudgeIn(b, v1install.Namespaces{Install: "i", Other: "o"})
			if !v.Judged() {
				t.Fatalf("not judged: %+v", v)
			}
			if v.OK == (v.Error != "") || v.OKWithGate == (v.ErrorWithGate != "") {
				t.Fatalf("verdict without its error, or the reverse: %+v", v)
			}
			if v.OKWithGate && v.Gate == v1install.GateRefused {
				t.Fatalf("accepted with the gate, no configuration said: %+v", v)
			}
			if !v.OK && v.OKWithGate && !strings.Contains(v.Error, "AllNamespaces") {
				t.Fatalf("only the AllNamespaces rule depends on the gate: %+v", v)
			}
			if again := v1install.JudgeIn(b, v1install.Namespaces{Install: "i", Other: "o"}); again != v {
				t.Fatalf("two verdicts: %+v / %+v", v, again)
			}
		}
	})
}
