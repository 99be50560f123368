package compat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Values in difference lines: strings quoted as Go quotes them (invalid bytes and non-printable
// runes escaped, so a line is valid UTF-8 whatever the answers hold), a long string shown as a
// window around its first difference with the other side, with … outside the quotes where cut;
// messages as compact JSON, cut with ….

const (
	valueWidth   = 72  // bytes of a string shown
	valueContext = 24  // of which before the first differing position
	messageWidth = 160 // bytes of a message's JSON shown
	maxJSONText  = 4 << 20
	maxJSONLines = 5 // differences listed inside one JSON text; the rest are counted
)

// text reports two differing strings. Two JSON texts are compared as JSON: one line per differing
// JSON path, named after the field's path: .properties[3].value $.group: left "a" right "b".
func (d *differ) text(at, l, r string) {
	if lv, rv, ok := bothJSON(l, r); ok {
		var jd jsonDiff
		jd.walk("$", lv, rv)
		if jd.count > 0 {
			for _, c := range jd.found {
				ls, rs := c.values()
				d.add(at+" "+c.path, ls, rs)
			}
			d.more += jd.count - len(jd.found)
			return
		}
		at += " (same JSON, other text)"
	}
	ls, rs := shortenPair(l, r)
	d.add(at, ls, rs)
}

// shortenPair quotes two strings, each cut to a window around their first differing byte.
func shortenPair(l, r string) (string, string) {
	if len(l) <= valueWidth && len(r) <= valueWidth {
		return strconv.Quote(l), strconv.Quote(r)
	}
	p := 0
	for p < len(l) && p < len(r) && l[p] == r[p] {
		p++
	}
	start := max(0, p-valueContext)
	for start > 0 && !utf8.RuneStart(l[start]) {
		start--
	}
	return window(l, start), window(r, start)
}

// window quotes valueWidth bytes of s from start, cut on rune boundaries.
func window(s string, start int) string {
	end := min(len(s), start+valueWidth)
	for end < len(s) && end > start && !utf8.RuneStart(s[end]) {
		end--
	}
	out := strconv.Quote(s[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}

// cutWidth cuts s to at most n bytes on a rune boundary, marking the cut with ….
func cutWidth(s string, n int) string {
	if len(s) <= n {
		return s
	}
	end := n
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// printable escapes invalid bytes (\xNN) and non-printable runes (\n, \u00a0) of unquoted text; the
// escapes of runes are JSON's, so JSON text stays JSON.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case !strconv.IsPrint(r) && r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		case !strconv.IsPrint(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func messageText(m protoreflect.Message) string {
	b, err := protojson.Marshal(m.Interface())
	if err != nil { // invalid UTF-8: list the fields set
		var parts []string
		for _, fd := range fieldsByNumber(m.Descriptor()) {
			if m.Has(fd) && !fd.IsList() && !fd.IsMap() {
				parts = append(parts, fd.JSONName()+":"+valueText(fd, m.Get(fd)))
			}
		}
		return cutWidth("{"+strings.Join(parts, ",")+"}", messageWidth)
	}
	return cutWidth(printable(string(compactJSON(b))), messageWidth)
}

// valueText renders one value of a field (a single element for a list field).
func valueText(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return messageText(v.Message())
	case protoreflect.StringKind:
		return window(v.String(), 0)
	case protoreflect.BytesKind:
		return window(string(v.Bytes()), 0)
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
	}
	return printable(fmt.Sprint(v.Interface()))
}

func responseText(a *Answer) string {
	switch len(a.Messages) {
	case 0:
		return "(absent)"
	case 1:
		return messageText(a.Messages[0].ProtoReflect())
	}
	return fmt.Sprintf("(%d messages)", len(a.Messages))
}
