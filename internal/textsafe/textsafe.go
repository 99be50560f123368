// Package textsafe is the one place where olmcat makes catalog-supplied text safe for the output it
// is printed in. A catalog is written by a pull request's author and read by its reviewer through
// olmcat, so every string in it (package, channel and bundle names, descriptions, deprecation
// messages) may try to forge or hide what the reviewer sees: a clear-screen or a carriage return on
// a terminal, a newline and a fence in a Markdown comment, a Mermaid directive, a character an XML
// parser refuses. There is one function per output context; each leaves ordinary text byte for
// byte as it is and changes only what would act instead of being shown.
//
// Machine formats (JSON, YAML, File-Based Catalogs) are exact and do not come here.
package textsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terminal shows s on a terminal (stdout or stderr, table or plain text): every character Go's %q
// escapes as not printable — C0 controls (newline, tab and carriage return too), DEL, C1 controls,
// bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), line and paragraph
// separators, zero-width characters — every Default_Ignorable_Code_Point of Unicode that %q
// prints (invisible fillers such as U+034F, U+115F and U+3164, variation selectors: "p.v1.0.1"
// followed by U+034F looks like "p.v1.0.1"), and every byte that is not UTF-8 is written as %q
// writes it (\x1b, \r, \u202e, \u034f, \xff), without quotes around the text. Backslashes and
// quotes stay as they are, so an ordinary name prints unchanged.
func Terminal(s string) string {
	return visible(s, "")
}

// TerminalLines is Terminal for olmcat's own multi-line messages that quote catalog text: the
// newlines stay, everything else Terminal escapes is escaped. Prefer Terminal on each catalog
// string where the message is built.
func TerminalLines(s string) string {
	return visible(s, "\n")
}

// MarkdownInline makes s safe as inline text of a Markdown paragraph, heading, list item or bold
// span (inside an HTML block such as <details><summary>, where a renderer keeps backslashes, use
// XMLText): Terminal's escapes (so no raw newline ends the block), HTML
// markup and % as entities (no tag, no comment opener <!--, no %% of a Mermaid directive anywhere
// in a comment that holds Mermaid pictures), and the characters that open inline structure —
// backticks (code spans), * and ~ (emphasis, strikethrough), [ and ] (links, images) and the
// backslash itself — escaped with a backslash, which a Markdown renderer removes. An underscore
// stays: inside a word it is text, and names hold it.
func MarkdownInline(s string) string {
	s = Terminal(s)
	if strings.IndexFunc(s, markdownSpecial) < 0 {
		return s
	}
	return markdownEscaper.Replace(s)
}

// MarkdownCell is MarkdownInline for a table cell: pipes are escaped too, and surrounding spaces
// trimmed. The line breaks olmcat writes itself between catalog strings are <br>: callers escape
// each string and join with <br>.
func MarkdownCell(s string) string {
	return strings.ReplaceAll(MarkdownInline(strings.TrimSpace(s)), "|", `\|`)
}

// MarkdownCode makes s safe inside an inline code span of one backtick: Terminal's escapes, and
// backticks written as ' (a code span shows a backslash as it is, so it cannot escape them).
func MarkdownCode(s string) string {
	return strings.ReplaceAll(Terminal(s), "`", "'")
}

func markdownSpecial(r rune) bool {
	return strings.ContainsRune("\\`*[]<>&~%", r)
}

// markdownEscaper: & < > as entities (inline HTML and comments cannot start), % too (no %% of a
// Mermaid directive or comment anywhere in the comment), the rest with a
// backslash (CommonMark: any ASCII punctuation may be escaped). | is left to MarkdownCell: in a
// paragraph it is text.
var markdownEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "%", "&#37;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "[", `\[`, "]", `\]`, "~", `\~`,
)

// MermaidLabel makes s safe inside a quoted Mermaid label (id["..."]), in a ```mermaid block of a
// Markdown comment or in a .mmd file: Terminal's escapes (no newline ends the statement or the
// fence), and as Mermaid entity codes the quote that ends the label, < and > (HTML in labels), %
// (Mermaid reads %%{init: ...}%% directives and %% comments anywhere in the text), the backtick
// (Markdown strings; fences), # (so that a name is never read as an entity code) and & (Mermaid
// renders labels as HTML: &rlm; or &#x202E; in a name would become the character itself).
func MermaidLabel(s string) string {
	s = Terminal(s)
	if strings.IndexAny(s, "\"<>%`#&") < 0 {
		return s
	}
	return mermaidEscaper.Replace(s)
}

var mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "%", "#37;", "`", "#96;", "#", "#35;", "&", "#amp;")

// DOTString makes s safe inside a quoted Graphviz DOT string (an id or a label): TerminalLines'
// escapes, the newlines olmcat writes between the lines of a label as \n, the backslash (\N, \G,
// \l are DOT's) and the quote escaped with a backslash, and & as &amp; (Graphviz reads HTML
// entities in labels: &#x202E; in a name would be drawn as a real right-to-left override).
func DOTString(s string) string {
	return dotEscaper.Replace(TerminalLines(s))
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "&", "&amp;")

// XMLText makes s safe as the text or a quoted attribute value of SVG, HTML or any XML: Terminal's
// escapes (so that no character XML 1.0 cannot hold, such as ESC, reaches the document, and no
// bidirectional override reorders what a browser shows), then the five XML specials as entities.
func XMLText(s string) string {
	s = Terminal(s)
	if strings.IndexAny(s, `&<>"'`) < 0 {
		return s
	}
	return xmlEscaper.Replace(s)
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// XMLDocument escapes, in a whole HTML or XML document olmcat wrote, what XMLText escapes
// except the tab, newline and carriage return and the markup: olmcat's own markup holds no other
// control or format character, so any in the document came from a catalog string that reached it
// through a template. It is the safety net of documents written by html/template, which escapes
// markup but leaves control characters raw.
func XMLDocument(s string) string {
	return visible(s, "\t\n\r")
}

// unsafe reports whether %q would escape r (a space is printable), or r is a default-ignorable
// code point: a character nothing shows.
func unsafe(r rune) bool {
	return r != ' ' && (!strconv.IsPrint(r) || DefaultIgnorable(r))
}

// visible writes the characters %q escapes as %q writes them, but those in keep.
func visible(s, keep string) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (unsafe(r) && !strings.ContainsRune(keep, r)) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[0])|0x100, 16)[1:])
		case unsafe(r) && !strings.ContainsRune(keep, r) && strconv.IsPrint(r): // default-ignorable
			b.WriteString(uEscape(r))
		case unsafe(r) && !strings.ContainsRune(keep, r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// MermaidQuoted is a quoted Mermaid label as opm's MermaidWriter writes it (Go's %q, which already
// writes control characters as escapes), with the quote, %, the backtick and & (an HTML entity of
// the name would be rendered as its character) of the name as Mermaid entity codes first: a Go-escaped \" does not stay inside a Mermaid string, and %%{...}%% anywhere
// in the text is a directive. An ordinary name comes out as opm writes it.
func MermaidQuoted(s string) string {
	if strings.ContainsAny(s, "\"%`&") {
		s = mermaidQuotedEscaper.Replace(s)
	}
	// %q leaves the default-ignorable characters it deems printable raw: visible escapes them.
	return visible(strconv.Quote(s), "")
}

var mermaidQuotedEscaper = strings.NewReplacer(`"`, "#quot;", "%", "#37;", "`", "#96;", "&", "#amp;")

// MermaidID makes s safe as (part of) a Mermaid node or subgraph id, where opm writes names as
// they are: a character that is not a letter, a digit or one of . - _ + / @ = becomes _xHH_ (its
// UTF-8 bytes in hex), so that a name cannot end the id, open a label or start a statement. An
// ordinary name comes out as it is.
func MermaidID(s string) string {
	if strings.IndexFunc(s, idUnsafe) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || idUnsafe(r) {
			b.WriteByte('_')
			for _, c := range []byte(s[i : i+size]) {
				b.WriteString("x" + strconv.FormatUint(uint64(c)|0x100, 16)[1:])
			}
			b.WriteByte('_')
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func idUnsafe(r rune) bool {
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".-_+/@=", r)) || DefaultIgnorable(r)
}
