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
