package compat

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// normalizationsDoc renders NORMALIZATIONS.md from the registry.
func normalizationsDoc() string {
	var b strings.Builder
	b.WriteString(`# compat normalizations

Generated from the registry in normalize.go (TestNormalizationsDocIsCurrent keeps it in sync).
Each one absorbs a legitimate difference listed in /work/shared/docs/grpc-semantics.md §3 (D1..D28;
§7 for property-order). Class: N cosmetic, P provenance or migration, S different semantics
(compared by each backend's own rule, computed from that side's ListBundles and GetPackage
answers), W service surface. "sqlite vs fbc" normalizations apply only when one side serves an
index.db and the other an FBC (the kind comes from the target, or from how a server words
"package not found"). They are applied in this order; select them with --normalize
(comma list, all, none, -NAME) or turn them all off with --strict.

| name | refs | class | applies to | what it ignores |
|---|---|---|---|---|
`)
	for _, n := range normalizations {
		scope := "any sides"
		if n.CrossKind {
			scope = "sqlite vs fbc"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", n.Name, n.Refs, n.Class, scope, strings.ReplaceAll(n.Doc, "|", "\\|"))
	}
	b.WriteString(`
Not normalized (reported as differences): D12 (non-head bundles without manifests, inherited by a
migrated FBC), D19 (rows SQL drops for NULL columns), D23 (olm.gvk values not in canonical form,
which SQL provider queries do not match), D27 (version/skipRange provenance; equal after
migration), and anything else.
`)
	return b.String()
}

func TestNormalizationsDocIsCurrent(t *testing.T) {
	want := normalizationsDoc()
	got, err := os.ReadFile("NORMALIZATIONS.md")
	if os.Getenv("OLMCAT_UPDATE_DOCS") != "" {
		if err := os.WriteFile("NORMALIZATIONS.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil || string(got) != want {
		t.Errorf("NORMALIZATIONS.md is out of date (%v): run OLMCAT_UPDATE_DOCS=1 go test -run TestNormalizationsDocIsCurrent ./grpccompat/compat", err)
	}
}
