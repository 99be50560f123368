package fbc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// This file writes a blob's YAML straight from its JSON bytes, one value at a time, producing the
// bytes sigs.k8s.io/yaml's JSONToYAML produces (opm's writer; the go-yaml v2 emitter under it):
// keys sorted as that emitter sorts them, strings plain, single-quoted, double-quoted or literal
// by its rules, long lines folded at column 80 as it folds them, numbers as it reads and writes
// them. JSONToYAML decodes every value into a map[interface{}]interface{} and encodes it again
// by reflection, which made YAML output several times slower than JSON. A value this writer does
// not take (a key it would write as a complex "? " key, duplicate keys, "<<", invalid UTF-8, an
// escaped surrogate) sends the blob to the generic path, which stays the reference: tests and a
// fuzz test compare the two.

// yamlBestWidth and yamlBestIndent are the emitter's defaults.
const (
	yamlBestWidth  = 80
	yamlBestIndent = 2
	yamlMaxKeyLen  = 128 // longest key written as a simple key
)

// yamlOut is the emitter's writing state: the column in characters, whether the last thing
// written was white space and whether the line holds only indentation so far.
type yamlOut struct {
	b          []byte
	column     int
	whitespace bool
	indention  bool
	openEnded  bool
	scratch    []byte
}

// appendYAMLDocument appends the YAML document for the JSON object j, as JSONToYAML writes it;
// ok is false when j holds something left to the generic path.
func appendYAMLDocument(dst, j []byte) (out []byte, ok bool) {
	w := &yamlOut{b: dst, whitespace: true, indention: true}
	i := jsonscan.SkipSpace(j, 0)
	if i >= len(j) || j[i] != '{' {
		return dst, false
	}
	end, ok := w.value(j, i, -1, false)
	if !ok || jsonscan.SkipSpace(j, end) != len(j) {
		return dst, false
	}
	w.writeIndent(-1) // document end
	if w.openEnded {  // stream end after a kept final line break
		w.indicator("...", true, false, false)
		w.writeIndent(-1)
	}
	return w.b, true
}

func (w *yamlOut) put(c byte) {
	w.b = append(w.b, c)
	w.column++
}

func (w *yamlOut) putBreak() {
	w.b = append(w.b, '\n')
	w.column = 0
}

func (w *yamlOut) writeIndent(indent int) {
	if indent < 0 {
		indent = 0
	}
	if !w.indention || w.column > indent || (w.column == indent && !w.whitespace) {
		w.putBreak()
	}
	for w.column < indent {
		w.put(' ')
	}
	w.whitespace = true
	w.indention = true
}

func (w *yamlOut) indicator(s string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !w.whitespace {
		w.put(' ')
	}
	w.b = append(w.b, s...)
	w.column += len(s)
	w.whitespace = isWhitespace
	w.indention = w.indention && isIndention
	w.openEnded = false
}

// scalarIndent is the indentation a scalar's continuation lines take under a node at indent.
func scalarIndent(indent int) int {
	if indent < 0 {
		return yamlBestIndent
	}
	return indent + yamlBestIndent
}

// value writes the JSON value at j[i] as a node of the block at indent (-1 for the root);
// mappingValue says it is a mapping's value (a sequence there is not indented). It returns where
// the value ends.
func (w *yamlOut) value(j []byte, i, indent int, mappingValue bool) (int, bool) {
	if i >= len(j) {
		return 0, false
	}
	switch c := j[i]; {
	case c == '{':
		return w.object(j, i, indent)
	case c == '[':
		return w.array(j, i, indent, mappingValue)
	case c == '"':
		s, end, ok := w.jsonString(j, i)
		if !ok {
			return 0, false
		}
		w.stringScalar(s, scalarIndent(indent), false)
		return end, true
	case c == 't' && bytes.HasPrefix(j[i:], []byte("true")):
		w.plain([]byte("true"), scalarIndent(indent), true)
		return i + 4, true
	case c == 'f' && bytes.HasPrefix(j[i:], []byte("false")):
		w.plain([]byte("false"), scalarIndent(indent), true)
		return i + 5, true
	case c == 'n' && bytes.HasPrefix(j[i:], []byte("null")):
		w.plain([]byte("null"), scalarIndent(indent), true)
		return i + 4, true
	case c == '-' || '0' <= c && c <= '9':
		end, ok := jsonscan.NumberEnd(j, i)
		if !ok {
			return 0, false
		}
		text, isString := yamlNumber(string(j[i:end]))
		if isString {
			w.stringScalar([]byte(text), scalarIndent(indent), false)
		} else {
			w.plain([]byte(text), scalarIndent(indent), true)
		}
		return end, true
	}
	return 0, false
}

// yamlNumber is what a JSON number reads as and is written back as: an int, a uint or a float
// (%g), or, when it is none of them (out of float64's range), the string of its text.
func yamlNumber(t string) (text string, isString bool) {
	if n, err := strconv.ParseInt(t, 0, 64); err == nil {
		return strconv.FormatInt(n, 10), false
	}
	if n, err := strconv.ParseUint(t, 0, 64); err == nil {
		return strconv.FormatUint(n, 10), false
	}
	if yamlFloatSyntax.MatchString(t) {
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return formatYAMLFloat(f), false
		}
	}
	return t, true
}

func formatYAMLFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	case math.IsNaN(f):
		return ".nan"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

type yamlMember struct {
	key        []byte // decoded
	valueStart int
}

func (w *yamlOut) object(j []byte, i, indent int) (int, bool) {
	i = jsonscan.SkipSpace(j, i+1)
	if i < len(j) && j[i] == '}' {
		w.indicator("{", true, true, false)
		w.indicator("}", false, false, false)
		return i + 1, true
	}
	var members []yamlMember
	for {
		if i >= len(j) || j[i] != '"' {
			return 0, false
		}
		key, end, ok := w.jsonString(j, i)
		if !ok {
			return 0, false
		}
		key = bytes.Clone(key) // the decoding buffer is reused
		i = jsonscan.SkipSpace(j, end)
		if i >= len(j) || j[i] != ':' {
			return 0, false
		}
		i = jsonscan.SkipSpace(j, i+1)
		members = append(members, yamlMember{key: key, valueStart: i})
		n, ok := yamlSkipValue(j, i)
		if !ok {
			return 0, false
		}
		i = jsonscan.SkipSpace(j, n)
		if i >= len(j) {
			return 0, false
		}
		if j[i] == '}' {
			break
		}
		if j[i] != ',' {
			return 0, false
		}
		i = jsonscan.SkipSpace(j, i+1)
	}
	end := i + 1
	if len(members) > 1 {
		slices.SortFunc(members, func(a, b yamlMember) int { return compareYAMLKeys(a.key, b.key) })
		for k := 1; k < len(members); k++ {
			if bytes.Equal(members[k-1].key, members[k].key) {
				return 0, false // the last one wins in JSONToYAML; left to it
			}
		}
	}
	m := 0
	if indent >= 0 {
		m = indent + yamlBestIndent
	}
	for _, mem := range members {
		if !simpleYAMLKey(mem.key) {
			return 0, false
		}
		w.writeIndent(m)
		w.stringScalar(mem.key, scalarIndent(m), true)
		w.indicator(":", false, false, false)
		if _, ok := w.value(j, mem.valueStart, m, true); !ok {
			return 0, false
		}
	}
	return end, true
}

// yamlSkipValue returns where the JSON value at j[i] ends (strings skipped many bytes at a time).
func yamlSkipValue(j []byte, i int) (int, bool) {
	if i >= len(j) {
		return 0, false
	}
	switch j[i] {
	case '"':
		e, _, ok := jsonscan.StringContentEnd(j, i+1)
		return e + 1, ok
	case '{', '[':
	default:
		n, ok := jsonscan.ValueEnd(j[i:])
		return i + n, ok
	}
	depth := 0
	for i < len(j) {
		switch j[i] {
		case '"':
			e, _, ok := jsonscan.StringContentEnd(j, i+1)
			if !ok {
				return 0, false
			}
			i = e + 1
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
		i++
	}
	return 0, false
}

// simpleYAMLKey: a key the emitter writes as "key:" (not "? key"), and that JSONToYAML reads as
// an ordinary key.
func simpleYAMLKey(k []byte) bool {
	if len(k) > yamlMaxKeyLen || string(k) == "<<" {
		return false
	}
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '\r', '\n':
			return false
		case 0xc2, 0xe2:
			if isYAMLBreak(k, i) {
				return false
			}
		}
	}
	return true
}

func (w *yamlOut) array(j []byte, i, indent int, mappingValue bool) (int, bool) {
	i = jsonscan.SkipSpace(j, i+1)
	if i < len(j) && j[i] == ']' {
		w.indicator("[", true, true, false)
		w.indicator("]", false, false, false)
		return i + 1, true
	}
	s := indent
	switch {
	case indent < 0:
		s = 0
	case !(mappingValue && !w.indention):
		s = indent + yamlBestIndent
	}
	for {
		w.writeIndent(s)
		w.indicator("-", true, false, true)
		end, ok := w.value(j, i, s, false)
		if !ok {
			return 0, false
		}
		i = jsonscan.SkipSpace(j, end)
		if i >= len(j) {
			return 0, false
		}
		if j[i] == ']' {
			return i + 1, true
		}
		if j[i] != ',' {
			return 0, false
		}
		i = jsonscan.SkipSpace(j, i+1)
	}
}

// jsonString decodes the JSON string at j[i]: its content (in j, or in w.scratch when it holds
// escapes) and where it ends. ok is false for invalid UTF-8 or an escaped surrogate, which the
// generic path's YAML parser refuses.
func (w *yamlOut) jsonString(j []byte, i int) (s []byte, end int, ok bool) {
	e, escaped, ok := jsonscan.StringContentEnd(j, i+1)
	if !ok {
		return nil, 0, false
	}
	raw := j[i+1 : e]
	if !escaped {
		if !utf8.Valid(raw) {
			return nil, 0, false
		}
		return raw, e + 1, true
	}
	out := w.scratch[:0]
	for k := 0; k < len(raw); {
		c := raw[k]
		if c != '\\' {
			n := bytes.IndexByte(raw[k:], '\\')
			if n < 0 {
				n = len(raw) - k
			}
			out = append(out, raw[k:k+n]...)
			k += n
			continue
		}
		switch raw[k+1] {
		case '"', '\\', '/':
			out = append(out, raw[k+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			v, err := strconv.ParseUint(string(raw[k+2:k+6]), 16, 32)
			if err != nil || 0xd800 <= v && v <= 0xdfff {
				return nil, 0, false
			}
			out = utf8.AppendRune(out, rune(v))
			k += 6
			continue
		default:
			return nil, 0, false
		}
		k += 2
	}
	w.scratch = out
	if !utf8.Valid(out) {
		return nil, 0, false
	}
	return out, e + 1, true
}

// compareYAMLKeys orders keys as go-yaml v2 orders a map's string keys: letters after other
// characters, runs of digits by their numeric value.
func compareYAMLKeys(a, b []byte) int {
	if yamlKeyLess(a, b) {
		return -1
	}
	if yamlKeyLess(b, a) {
		return 1
	}
	return 0
}

func yamlKeyLess(a, b []byte) bool {
	if isASCII(a) && isASCII(b) {
		return keyLess(a, b)
	}
	return keyLess([]rune(string(a)), []rune(string(b)))
}

func isASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 { // a word at a time: most of a catalog is long ASCII strings
		if binary.LittleEndian.Uint64(b[i:])&yamlHighBits != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

const (
	yamlLowBits  = 0x0101010101010101
	yamlHighBits = 0x8080808080808080
)

// yamlHasByte: some byte of the word x is c.
func yamlHasByte(x uint64, c byte) bool {
	v := x ^ (yamlLowBits * uint64(c))
	return (v-yamlLowBits)&^v&yamlHighBits != 0
}

// yamlSafeWord: the eight bytes of x are all yamlPlainSafe.
func yamlSafeWord(x uint64) bool {
	if x&yamlHighBits != 0 || (x-yamlLowBits*0x21)&^x&yamlHighBits != 0 {
		return false // a byte of 0x80 or more, or below 0x21
	}
	for _, c := range [...]byte{0x7f, ',', '?', '[', ']', '{', '}', ':', '#'} {
		if yamlHasByte(x, c) {
			return false
		}
	}
	return true
}

func keyLess[T byte | rune](a, b []T) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		aLetter, bLetter := unicode.IsLetter(rune(a[i])), unicode.IsLetter(rune(b[i]))
		if aLetter && bLetter {
			return a[i] < b[i]
		}
		if aLetter || bLetter {
			return bLetter
		}
		// Compare the numbers starting here (0 where none does); a zero that continues a
		// number with a nonzero digit before it counts as part of a larger number.
		var an, bn int64
		if a[i] == '0' || b[i] == '0' {
			for k := i - 1; k >= 0 && unicode.IsDigit(rune(a[k])); k-- {
				if a[k] != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		ae, be := i, i
		for ; ae < len(a) && unicode.IsDigit(rune(a[ae])); ae++ {
			an = an*10 + int64(a[ae]-'0')
		}
		for ; be < len(b) && unicode.IsDigit(rune(b[be])); be++ {
			bn = bn*10 + int64(b[be]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ae != be {
			return ae < be
		}
		return a[i] < b[i]
	}
	return len(a) < len(b)
}

// stringScalar writes the string s in the style the emitter picks for it; indent is where its
// continuation lines start; key says it is a (simple) mapping key.
func (w *yamlOut) stringScalar(s []byte, indent int, key bool) {
	a := analyzeYAMLScalar(s)
	var style byte // 'p'lain, '\'' single, '"' double, '|' literal
	switch {
	case bytes.IndexByte(s, '\n') >= 0:
		style = '|'
	case yamlPlainIsString(s):
		style = 'p'
	default:
		style = '"'
	}
	if key && a.multiline {
		style = '"'
	}
	if style == 'p' && (!a.blockPlain || len(s) == 0 && key) {
		style = '\''
	}
	if style == '\'' && !a.singleQuoted {
		style = '"'
	}
	if style == '|' && (!a.block || key) {
		style = '"'
	}
	switch style {
	case 'p':
		w.plain(s, indent, !key)
	case '\'':
		w.singleQuoted(s, indent, !key)
	case '"':
		w.doubleQuoted(s, indent, !key)
	case '|':
		w.literal(s, indent)
	}
}

type yamlScalarAnalysis struct {
	multiline, blockPlain, singleQuoted, block bool
}

// yamlPlainSafe marks the ASCII bytes that change nothing in the analysis of a scalar when they
// are neither its first nor its last byte.
var yamlPlainSafe = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range ",?[]{}:#" {
		t[c] = false
	}
	return t
}()

func analyzeYAMLScalar(v []byte) yamlScalarAnalysis {
	if len(v) == 0 {
		return yamlScalarAnalysis{blockPlain: true, singleQuoted: true}
	}
	var blockIndicators, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	var previousSpace, previousBreak bool
	if len(v) >= 3 && (v[0] == '-' && v[1] == '-' && v[2] == '-' || v[0] == '.' && v[1] == '.' && v[2] == '.') {
		blockIndicators = true
	}
	precededByWhitespace := true
	for i, w := 0, 0; i < len(v); i += w {
		c := v[i]
		if i > 0 && yamlPlainSafe[c] {
			// an ordinary character: only the flags it clears change
			k := i + 1
			for k+8 <= len(v) && yamlSafeWord(binary.LittleEndian.Uint64(v[k:])) {
				k += 8
			}
			for k < len(v) && yamlPlainSafe[v[k]] {
				k++
			}
			w = k - i
			previousSpace, previousBreak, precededByWhitespace = false, false, false
			continue
		}
		w = yamlCharWidth(c)
		followedByWhitespace := i+w >= len(v) || v[i+w] == ' ' || v[i+w] == '\t'
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				blockIndicators = true
			case '?', ':', '-':
				if followedByWhitespace {
					blockIndicators = true
				}
			}
		} else {
			switch c {
			case ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					blockIndicators = true
				}
			}
		}
		if !isYAMLPrintable(v, i) {
			special = true
		}
		switch {
		case c == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(v) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		case isYAMLBreak(v, i):
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(v) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = c == ' ' || c == '\t' || c == 0 || isYAMLBreak(v, i)
	}
	a := yamlScalarAnalysis{multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.blockPlain = false
	}
	if trailingSpace {
		a.block = false
	}
	if breakSpace {
		a.blockPlain, a.singleQuoted = false, false
	}
	if spaceBreak || special {
		a.blockPlain, a.singleQuoted, a.block = false, false, false
	}
	if lineBreaks || blockIndicators {
		a.blockPlain = false
	}
	return a
}

// yamlCharWidth is the length of the UTF-8 sequence its first byte c starts (input is valid).
func yamlCharWidth(c byte) int {
	switch {
	case c&0x80 == 0:
		return 1
	case c&0xe0 == 0xc0:
		return 2
	case c&0xf0 == 0xe0:
		return 3
	}
	return 4
}

// isYAMLPrintable: the emitter writes the character at v[i] as it is (tab and characters outside
// the Basic Multilingual Plane are not).
func isYAMLPrintable(v []byte, i int) bool {
	c := v[i]
	switch {
	case c == '\n' || 0x20 <= c && c <= 0x7e:
		return true
	case c == 0xc2:
		return v[i+1] >= 0xa0
	case 0xc2 < c && c < 0xed, c == 0xee:
		return true
	case c == 0xed:
		return v[i+1] < 0xa0
	case c == 0xef:
		return !(v[i+1] == 0xbb && v[i+2] == 0xbf) && !(v[i+1] == 0xbf && (v[i+2] == 0xbe || v[i+2] == 0xbf))
	}
	return false
}

// isYAMLBreak: CR, LF, NEL, LS or PS at v[i].
func isYAMLBreak(v []byte, i int) bool {
	switch v[i] {
	case '\r', '\n':
		return true
	case 0xc2:
		return i+1 < len(v) && v[i+1] == 0x85
	case 0xe2:
		return i+2 < len(v) && v[i+1] == 0x80 && (v[i+2] == 0xa8 || v[i+2] == 0xa9)
	}
	return false
}

// yamlPlainIsString: s written plain reads back as the same string (not a null, bool, number,
// timestamp or base-60 float), as go-yaml v2 resolves a plain scalar.
func yamlPlainIsString(s []byte) bool {
	if len(s) == 0 {
		return false // null
	}
	switch c := s[0]; {
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		_, special := yamlSpecialPlain[string(s)]
		return !special
	case c == '.':
		if _, special := yamlSpecialPlain[string(s)]; special {
			return false
		}
		_, err := strconv.ParseFloat(string(s), 64)
		return err != nil
	case c == '+' || c == '-' || '0' <= c && c <= '9':
		return !yamlPlainIsNotString(string(s))
	}
	return true
}

func yamlPlainIsNotString(s string) bool {
	if _, special := yamlSpecialPlain[s]; special {
		return true
	}
	if isYAMLTimestamp(s) {
		return true
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if yamlFloatSyntax.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(plain, "0b"); ok {
		if _, err := strconv.ParseInt(rest, 2, 64); err == nil {
			return true
		}
		if _, err := strconv.ParseUint(rest, 2, 64); err == nil {
			return true
		}
	} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
		if _, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
			return true
		}
	}
	// A base-60 float is read as a string but quoted all the same.
	return strings.IndexByte(s, ':') >= 0 && yamlBase60Float.MatchString(s)
}

// yamlSpecialPlain holds the plain words go-yaml v2 reads as a bool, a null, a special float or
// a merge key.
var yamlSpecialPlain = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF " +
		"~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<") {
		m[w] = true
	}
	return m
}()

var (
	yamlFloatSyntax = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	yamlBase60Float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)
)

// isYAMLTimestamp: s starts with four digits and a dash and parses in one of the layouts go-yaml
// v2 reads a plain timestamp in.
func isYAMLTimestamp(s string) bool {
	if len(s) < 5 || s[4] != '-' {
		return false
	}
	for _, c := range s[:4] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// write copies v[i:end] (whole characters), counting columns in characters.
func (w *yamlOut) write(v []byte) {
	w.b = append(w.b, v...)
	if isASCII(v) {
		w.column += len(v)
	} else {
		w.column += utf8.RuneCount(v)
	}
}

// plain writes a plain scalar; with allowBreaks a space past column 80 becomes a line break.
func (w *yamlOut) plain(v []byte, indent int, allowBreaks bool) {
	if !w.whitespace {
		w.put(' ')
	}
	spaces := false
	for i := 0; i < len(v); {
		if v[i] == ' ' {
			if allowBreaks && !spaces && w.column > yamlBestWidth && !(i+1 < len(v) && v[i+1] == ' ') {
				w.writeIndent(indent)
			} else {
				w.put(' ')
			}
			i++
			spaces = true
			continue
		}
		// plain scalars hold no line breaks (the analysis sends those to other styles)
		n := bytes.IndexByte(v[i:], ' ')
		if n < 0 {
			n = len(v) - i
		}
		w.write(v[i : i+n])
		i += n
		w.indention = false
		spaces = false
	}
	w.whitespace = false
	w.indention = false
}

// writeBreak writes the line break at v[i] and returns its width.
func (w *yamlOut) writeBreak(v []byte, i int) int {
	if v[i] == '\n' {
		w.putBreak()
		return 1
	}
	n := yamlCharWidth(v[i])
	w.b = append(w.b, v[i:i+n]...)
	w.column = 0
	return n
}

func (w *yamlOut) singleQuoted(v []byte, indent int, allowBreaks bool) {
	w.indicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(v); {
		switch {
		case v[i] == ' ':
			if allowBreaks && !spaces && w.column > yamlBestWidth && i > 0 && i < len(v)-1 && v[i+1] != ' ' {
				w.writeIndent(indent)
			} else {
				w.put(' ')
			}
			i++
			spaces = true
		case isYAMLBreak(v, i):
			if !breaks && v[i] == '\n' {
				w.putBreak()
			}
			i += w.writeBreak(v, i)
			w.indention = true
			breaks = true
		default:
			if breaks {
				w.writeIndent(indent)
			}
			if v[i] == '\'' {
				w.put('\'')
			}
			n := yamlCharWidth(v[i])
			w.write(v[i : i+n])
			i += n
			w.indention = false
			spaces, breaks = false, false
		}
	}
	w.indicator("'", false, false, false)
	w.whitespace = false
	w.indention = false
}

func (w *yamlOut) doubleQuoted(v []byte, indent int, allowBreaks bool) {
	w.indicator(`"`, true, false, false)
	bom := len(v) >= 3 && v[0] == 0xef && v[1] == 0xbb && v[2] == 0xbf // the emitter then escapes every character
	spaces := false
	for i := 0; i < len(v); {
		c := v[i]
		if bom || !isYAMLPrintable(v, i) || isYAMLBreak(v, i) || c == '"' || c == '\\' {
			r, n := utf8.DecodeRune(v[i:])
			i += n
			w.put('\\')
			switch r {
			case 0x00:
				w.put('0')
			case 0x07:
				w.put('a')
			case 0x08:
				w.put('b')
			case 0x09:
				w.put('t')
			case 0x0a:
				w.put('n')
			case 0x0b:
				w.put('v')
			case 0x0c:
				w.put('f')
			case 0x0d:
				w.put('r')
			case 0x1b:
				w.put('e')
			case '"':
				w.put('"')
			case '\\':
				w.put('\\')
			case 0x85:
				w.put('N')
			case 0xa0:
				w.put('_')
			case 0x2028:
				w.put('L')
			case 0x2029:
				w.put('P')
			default:
				digits := 8
				switch {
				case r <= 0xff:
					w.put('x')
					digits = 2
				case r <= 0xffff:
					w.put('u')
					digits = 4
				default:
					w.put('U')
				}
				for k := (digits - 1) * 4; k >= 0; k -= 4 {
					w.put("0123456789ABCDEF"[(r>>uint(k))&0xf])
				}
			}
			spaces = false
			continue
		}
		if c == ' ' {
			if allowBreaks && !spaces && w.column > yamlBestWidth && i > 0 && i < len(v)-1 {
				w.writeIndent(indent)
				if v[i+1] == ' ' {
					w.put('\\')
				}
			} else {
				w.put(' ')
			}
			i++
			spaces = true
			continue
		}
		n := yamlCharWidth(c)
		w.write(v[i : i+n])
		i += n
		spaces = false
	}
	w.indicator(`"`, false, false, false)
	w.whitespace = false
	w.indention = false
}

func (w *yamlOut) literal(v []byte, indent int) {
	w.indicator("|", true, false, false)
	// block scalar hints: an indentation indicator when the text starts with a space or a break,
	// a chomping indicator by how it ends
	if v[0] == ' ' || isYAMLBreak(v, 0) {
		w.indicator(string(rune('0'+yamlBestIndent)), false, false, false)
	}
	w.openEnded = false
	last := len(v) - 1
	for v[last]&0xc0 == 0x80 {
		last--
	}
	switch {
	case !isYAMLBreak(v, last):
		w.indicator("-", false, false, false)
	case last == 0:
		w.openEnded = true // and written over by the indicator, as the emitter does
		w.indicator("+", false, false, false)
	default:
		prev := last - 1
		for v[prev]&0xc0 == 0x80 {
			prev--
		}
		if isYAMLBreak(v, prev) {
			w.openEnded = true
			w.indicator("+", false, false, false)
		}
	}
	w.putBreak()
	w.indention = true
	w.whitespace = true
	breaks := true
	for i := 0; i < len(v); {
		if isYAMLBreak(v, i) {
			i += w.writeBreak(v, i)
			w.indention = true
			breaks = true
			continue
		}
		if breaks {
			w.writeIndent(indent)
		}
		// up to the next line break (LS and PS are rare: they end a run too)
		n := 0
		for i+n < len(v) && v[i+n] != '\n' && v[i+n] != '\r' && !(v[i+n] >= 0xc2 && isYAMLBreak(v, i+n)) {
			n++
		}
		w.write(v[i : i+n])
		i += n
		w.indention = false
		breaks = false
	}
}

// writeCatalogYAML writes one package's blobs as writePackage writes them in YAML, for the
// packages fastWritable accepts: each blob's JSON comes from the JSON writer's fast path (bundle
// objects from their base64 text, not re-encoded) and its YAML from that JSON.
func writeCatalogYAML(w *bufio.Writer, c *Catalog) error {
	var js bytes.Buffer
	jw := &jsonBlobWriter{w: bufio.NewWriterSize(&js, 64<<10)}
	var y []byte
	blob := func(what func(), v any) error {
		js.Reset()
		what()
		if jw.err == nil {
			jw.err = jw.w.Flush()
		}
		if jw.err != nil {
			return jw.err
		}
		var err error
		if y, err = blobYAML(y[:0], js.Bytes()); err != nil {
			return err
		}
		if len(y) > DefaultMaxBlobSize {
			return tooLargeToWrite(v, len(y))
		}
		_, err = w.Write(y)
		return err
	}
	for i := range c.Packages {
		p := &c.Packages[i]
		if err := blob(func() { jw.pkg(p) }, *p); err != nil {
			return fmt.Errorf("package %q: %w", p.Name, err)
		}
	}
	for i := range c.Channels {
		ch := &c.Channels[i]
		if err := blob(func() { jw.channel(ch) }, *ch); err != nil {
			return fmt.Errorf("channel %q of package %q: %w", ch.Name, ch.Package, err)
		}
	}
	for i := range c.Bundles {
		b := &c.Bundles[i]
		if err := blob(func() { jw.bundle(b) }, *b); err != nil {
			return fmt.Errorf("bundle %q of package %q: %w", b.Name, b.Package, err)
		}
	}
	for i := range c.Deprecations {
		d := &c.Deprecations[i]
		if err := blob(func() { jw.deprecation(d) }, *d); err != nil {
			return fmt.Errorf("deprecations of package %q: %w", d.Package, err)
		}
	}
	return nil
}
