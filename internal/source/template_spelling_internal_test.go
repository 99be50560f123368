package source

import "testing"

func TestMeantTemplateSchema(t *testing.T) {
	for schema, want := range map[string]string{
		"olm.template.basik":        "olm.template.basic",
		"olm.template.bsaic":        "olm.template.basic", // neighbours swapped
		"olm.templat.basic":         "olm.template.basic",
		"OLM.Template.Basic":        "olm.template.basic",
		"olm-template-basic":        "olm.template.basic",
		"olm_template.basic":        "olm.template.basic",
		"olm.basic":                 "olm.template.basic", // the other form
		"olm.semvr":                 "olm.semver",
		"OLM.Semver":                "olm.semver",
		"olm.template.semver":       "olm.semver",
		"olm.template.substitute":   "olm.template.substitutes",
		"olm.substitutes":           "olm.template.substitutes",
		"olm.template.substitutess": "olm.template.substitutes",
		// not close to any
		"olm.template.foo":   "",
		"olm.package":        "",
		"olm.bundle":         "",
		"olm.channel":        "",
		"olm.deprecations":   "",
		"olm.bundle.object":  "",
		"com.example.custom": "",
		"":                   "",
		"olm.template.bas":   "olm.template.basic", // two deletions
		"olm.template.b":     "",
	} {
		got, ok := meantTemplateSchema(schema)
		if got != want || ok != (want != "") {
			t.Errorf("%q: got %q %v, want %q", schema, got, ok, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"abc", "ab", 1}, {"abc", "xbc", 1},
		{"ca", "abc", 3}, // optimal string alignment, not unrestricted Damerau-Levenshtein (2)
		{"kitten", "sitting", 3}, {"a", "abcdef", 4},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := editDistance(c.b, c.a); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}
