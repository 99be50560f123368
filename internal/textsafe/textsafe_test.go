package textsafe

import (
	"encoding/xml"
	"strings"
	"testing"
)

// hostile are the names of issue 26: each tries to act on what the reviewer sees.
var hostile = []string{
	"x\x1b[2J", // clear screen
	"x\x1b]8;;http://evil\x07click\x1b]8;;\x07", // hyperlink
	"x\rolmcat: valid: 0 errors",                // a line rewritten into a fake verdict
	"x\n```\n",                                  // a Markdown fence closed
	"x\n%%{init: {'securityLevel':'loose'}}%%",  // a Mermaid directive
	"x<!-- hidden",                              // an HTML comment
	"x\u202egnp.exe",                            // a right-to-left override
	"x\u2066y\u2069",                            // an isolate
	"x\u0085y\u009bz\x7f",                       // C1 controls, DEL
	"x\xffy",                                    // not UTF-8
	"x\u2028y",                                  // a line separator
}

func TestTerminal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"etcdoperator.v0.9.4", "etcdoperator.v0.9.4"},
		{`a\b "c" 'd' é 日本`, `a\b "c" 'd' é 日本`},
		{"x\x1b[2J", `x\x1b[2J`},
		{"x\rolmcat: valid", `x\rolmcat: valid`},
		{"a\nb\tc", `a\nb\tc`},
		{"x\u202ey", `x\u202ey`},
		{"x\u0085", `x\u0085`},
		{"x\x7f", `x\x7f`},
		{"x\xffy", `x\xffy`},
		{"x\u200by", `x\u200by`},
	} {
		if got := Terminal(tc.in); got != tc.want {
			t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := TerminalLines("a\x1b\nb\r"); got != "a\\x1b\nb\\r" {
		t.Errorf("TerminalLines kept or escaped the wrong characters: %q", got)
	}
	for _, s := range hostile {
		for _, r := range Terminal(s) {
			if unsafe(r) || r == 0xfffd {
				t.Errorf("Terminal(%q) holds %U raw", s, r)
			}
		}
	}
}

func TestMarkdown(t *testing.T) {
	if got := MarkdownInline("etcd-operator_x.v1.0.0"); got != "etcd-operator_x.v1.0.0" {
		t.Errorf("an ordinary name changed: %q", got)
	}
	for _, tc := range []struct{ in, want string }{
		{"a`b", "a\\`b"},
		{"a<!--b", "a&lt;!--b"},
		{"[x](http://evil)", `\[x\](http://evil)`},
		{`a\`, `a\\`},
		{"a\n```", "a\\\\n\\`\\`\\`"}, // shown as a\n``` once rendered
	} {
		if got := MarkdownInline(tc.in); got != tc.want {
			t.Errorf("MarkdownInline(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := MarkdownCell(" a|b "); got != `a\|b` {
		t.Errorf("MarkdownCell = %q", got)
	}
	if got := MarkdownCode("a`b\n"); got != `a'b\n` {
		t.Errorf("MarkdownCode = %q", got)
	}
	for _, s := range hostile {
		for _, f := range []func(string) string{MarkdownInline, MarkdownCell} {
			out := f(s)
			if strings.ContainsAny(out, "\n\r<") || strings.Contains(strings.ReplaceAll(out, "\\`", ""), "`") {
				t.Errorf("%q became %q: a newline, a tag or a backtick run", s, out)
			}
		}
	}
}

func TestMermaidLabel(t *testing.T) {
	if got := MermaidLabel("etcdoperator.v0.9.4 (head)"); got != "etcdoperator.v0.9.4 (head)" {
		t.Errorf("an ordinary label changed: %q", got)
	}
	for _, s := range hostile {
		out := MermaidLabel(s)
		if strings.ContainsAny(out, "\n\r\"<>%`") {
			t.Errorf("MermaidLabel(%q) = %q: a newline, quote, tag, %% or backtick", s, out)
		}
	}
	if got := MermaidLabel(`a"#%`); got != "a#quot;#35;#37;" {
		t.Errorf("MermaidLabel = %q", got)
	}
}

func TestXML(t *testing.T) {
	for _, s := range append(hostile, "a&b<c>\"d'", "\x00\x01\ufffe\uffff") {
		doc := "<svg><text title=\"" + XMLText(s) + "\">" + XMLText(s) + "</text>" + XMLDocument("<p>"+strings.NewReplacer("<", "", ">", "", "&", "").Replace(s)+"</p>") + "</svg>"
		d := xml.NewDecoder(strings.NewReader(doc))
		for {
			_, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("%q: not well-formed XML: %v\n%q", s, err, doc)
				}
				break
			}
		}
	}
}

func FuzzTextsafe(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Terminal(s) {
			if unsafe(r) {
				t.Fatalf("Terminal(%q) holds %U raw", s, r)
			}
		}
		if out := MermaidLabel(s); strings.ContainsAny(out, "\n\r\"<>%`") {
			t.Fatalf("MermaidLabel(%q) = %q", s, out)
		}
		if out := MarkdownCell(s); strings.ContainsAny(out, "\n\r<") {
			t.Fatalf("MarkdownCell(%q) = %q", s, out)
		}
		d := xml.NewDecoder(strings.NewReader("<t a=\"" + XMLText(s) + "\">" + XMLText(s) + "</t>"))
		for {
			if _, err := d.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("XMLText(%q) is not well-formed: %v", s, err)
				}
				break
			}
		}
	})
}

// TestDefaultIgnorable checks the derived property against members and non-members listed in
// Unicode's DerivedCoreProperties.txt (Default_Ignorable_Code_Point).
func TestDefaultIgnorable(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180e, 0x180f,
		0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202e, 0x2060, 0x2064, 0x2065, 0x206f, 0x3164,
		0xfe00, 0xfe0f, 0xfeff, 0xffa0, 0xfff0, 0xfff8, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a, 0xe0000, 0xe0001,
		0xe0020, 0xe007f, 0xe0100, 0xe01ef, 0xe0fff} {
		if !DefaultIgnorable(r) {
			t.Errorf("%U is Default_Ignorable_Code_Point; DefaultIgnorable says no", r)
		}
	}
	for _, r := range []rune{' ', 'a', '&', 0x00a0, 0x0600, 0x06dd, 0x070f, 0x110bd, 0x1680, 0x2000, 0x2028,
		0x3000, 0xfff9, 0xfffb, 0xfffc, 0x13430, 0x1343f, 0x3163, 0x1161, 0xe1000, 0x10ffff, 'é', '日'} {
		if DefaultIgnorable(r) {
			t.Errorf("%U is not Default_Ignorable_Code_Point; DefaultIgnorable says it is", r)
		}
	}
}

// TestInvisibleFillers: the fillers %q prints raw are escaped in every context, so that
// "p.v1.0.1" + U+034F never looks like "p.v1.0.1".
func TestInvisibleFillers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"p.v1.0.1\u034f", `p.v1.0.1\u034f`},
		{"p\u115fq\u3164r", `p\u115fq\u3164r`},
		{"x\ufe0f\U000e0041", `x\ufe0f\U000e0041`},
		{"x\u200by", `x\u200by`},
	} {
		if got := Terminal(tc.in); got != tc.want {
			t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for name, f := range map[string]func(string) string{"MarkdownInline": MarkdownInline, "MarkdownCell": MarkdownCell,
			"MarkdownCode": MarkdownCode, "MermaidLabel": MermaidLabel, "MermaidQuoted": MermaidQuoted, "MermaidID": MermaidID,
			"XMLText": XMLText, "XMLDocument": XMLDocument, "DOTString": DOTString} {
			if out := f(tc.in); strings.IndexFunc(out, DefaultIgnorable) >= 0 {
				t.Errorf("%s(%q) = %q keeps an invisible character", name, tc.in, out)
			}
		}
	}
}

// TestEntitiesInPictures: an HTML entity in a name reaches no picture as an entity: Graphviz and
// Mermaid render them (&#x202E; would be a real right-to-left override).
func TestEntitiesInPictures(t *testing.T) {
	in := `p&#x202E;&#x2028;&#x200B;&rlm;&lt;`
	for name, tc := range map[string]struct {
		f    func(string) string
		want string
	}{
		"DOTString":     {DOTString, `p&amp;#x202E;&amp;#x2028;&amp;#x200B;&amp;rlm;&amp;lt;`},
		"MermaidLabel":  {MermaidLabel, `p#amp;#35;x202E;#amp;#35;x2028;#amp;#35;x200B;#amp;rlm;#amp;lt;`},
		"MermaidQuoted": {MermaidQuoted, `"p#amp;#x202E;#amp;#x2028;#amp;#x200B;#amp;rlm;#amp;lt;"`},
		"XMLText":       {XMLText, `p&amp;#x202E;&amp;#x2028;&amp;#x200B;&amp;rlm;&amp;lt;`},
	} {
		if got := tc.f(in); got != tc.want {
			t.Errorf("%s(%q) = %q, want %q", name, in, got, tc.want)
		}
	}
	if got := DOTString("a\\b\"c\nd"); got != `a\\b\"c\nd` {
		t.Errorf("DOTString = %q", got)
	}
	if got := MermaidQuoted("etcdoperator.v0.9.4"); got != `"etcdoperator.v0.9.4"` {
		t.Errorf("an ordinary name changed: %s", got)
	}
}

func TestCut(t *testing.T) {
	long := "p.v1.0.1-" + strings.Repeat("a", 1<<20-9)
	got := Cut(long, 20)
	if got != "p.v1.0.1-aaaaaaaaaaa…(1,048,576 bytes)" {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut("short", 20); got != "short" {
		t.Errorf("Cut of a short string = %q", got)
	}
	// Whole characters: 日 is three bytes; a cut inside one backs up to its start.
	if got := Cut("ab日本語", 4); got != "ab…(11 bytes)" {
		t.Errorf("Cut inside a character = %q", got)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 65536: "65,536", 1234567890: "1,234,567,890", -1234: "-1,234"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
