package template

import (
	"bytes"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// A template's size is in its top-level `entries` (basic, substitutes) and `substitutions`
// sequences. Read whole, a YAML document costs the YAML parser's tree, the generic map it is
// decoded into and the JSON it is re-encoded as: about 35 times the text (a 17 MB template took
// 618 MB). splitDocument reads such a document item by item instead: each item of those
// sequences is decoded on its own, exactly as the whole document decodes it, and the rest of the
// document (its header) on its own, so that what is held at once is the text, one item's tree and
// the JSON. The JSON it returns is byte for byte the JSON the whole document decodes to.
//
// It reads only plain block-style documents and gives up (ok false) on anything else: top-level
// keys that are not plain `key:` lines, tabs in indentation, anchors, aliases, tags or merge keys
// anywhere, a split key spelled twice or in another case, or any item or header the YAML parser
// refuses. The caller then reads the document whole, which gives opm's own error messages.

// splitKeys are the top-level sequences read item by item.
var splitKeys = []string{"entries", "substitutions"}

// splitDoc is a document read item by item: its JSON, and the lines of its parts.
type splitDoc struct {
	json  json.RawMessage
	lines *Lines
}

// splitDocument reads doc, the text of the first YAML document of a template (line numbers count
// from its first byte), item by item; ok is false when it cannot (see above).
func splitDocument(doc []byte) (_ *splitDoc, ok bool) {
	if mayHaveNodeProperties(doc) {
		return nil, false
	}
	var (
		header   bytes.Buffer
		seqs     = map[string][][]byte{} // split key -> the text of each item
		itemLine = map[string][]int{}    // split key -> the line of each item's content
		seen     = map[string]bool{}
		docLine  = 0
		lines    = lineCursor{doc: doc}
		// A semver template's candidate, fast and stable (any case, once each): the key as
		// spelled, the bundles key as spelled, its items and their lines.
		bundleSets []bundleSet
	)
	for line, ok := lines.next(); ok; line, ok = lines.next() {
		if docLine == 0 && isSeparator(line) {
			header.Write(line) // the document's own `---`
			continue
		}
		if hasTabIndent(line) || isDirectiveOrEnd(line) {
			return nil, false
		}
		if !isBlankOrComment(line) && line[0] == ' ' && docLine == 0 {
			return nil, false // an indented top-level mapping: read whole
		}
		if isBlankOrComment(line) || line[0] == ' ' {
			header.Write(line)
			continue
		}
		// A top-level line: `key:` or `key: value`, key a plain scalar.
		key, rest, isKey := topLevelKey(line)
		if !isKey {
			return nil, false
		}
		if docLine == 0 {
			docLine = lines.number
		}
		lower := strings.ToLower(key)
		for _, k := range splitKeys {
			if lower == k && (key != k || seen[k]) {
				return nil, false // another spelling, or twice: the JSON decoder's rules would apply
			}
		}
		if slices.Contains(archetypes, lower) && seen[lower] {
			return nil, false // twice, in any case: the whole document's decoder decides
		}
		if slices.Contains(archetypes, lower) && isBlankOrComment(rest) {
			seen[lower] = true
			set, ok := archetypeBundles(&lines)
			if !ok {
				return nil, false
			}
			set.key, set.archetype = key, slices.Index(archetypes, lower)
			header.WriteString(key + ":\n  " + set.bundlesKey + ": []\n")
			bundleSets = append(bundleSets, set)
			continue
		}
		seen[lower] = true
		if !isSplitKey(key) || !isBlankOrComment(rest) {
			header.Write(line)
			continue
		}
		items, starts, ok := sequenceItems(&lines)
		if !ok {
			return nil, false
		}
		header.WriteString(key + ": []\n")
		seqs[key], itemLine[key] = items, starts
	}
	if docLine == 0 {
		return nil, false
	}
	// A semver template is decoded strictly (a key twice is an error): its parts are too, and
	// one that is not is read whole, for opm's error.
	strict := len(bundleSets) > 0
	var top map[string]json.RawMessage
	if err := noPanic(func() error { return unmarshalYAML(header.Bytes(), &top, strict) }); err != nil || top == nil {
		return nil, false
	}
	for key, items := range seqs {
		raw, ok := decodeItems(key, items, strict)
		if !ok {
			return nil, false
		}
		top[key] = raw
	}
	l := &Lines{Document: docLine, Entries: itemLine["entries"], Substitutions: itemLine["substitutions"]}
	for _, set := range bundleSets {
		raw, ok := decodeItems(set.bundlesKey, set.items, true)
		if !ok {
			return nil, false
		}
		key, err := json.Marshal(set.bundlesKey)
		if err != nil {
			return nil, false
		}
		top[set.key] = slices.Concat([]byte("{"), key, []byte(":"), raw, []byte("}"))
		l.Bundles[set.archetype] = set.lines
	}
	out, err := json.Marshal(top)
	if err != nil {
		return nil, false
	}
	return &splitDoc{json: out, lines: l}, true
}

// bundleSet is one of a semver template's candidate, fast and stable mappings, read item by item:
// `KEY:`, then only `  bundles:` (any case, indented) and its block sequence.
type bundleSet struct {
	key, bundlesKey string
	archetype       int // its index in archetypes
	items           [][]byte
	lines           []int
}

// archetypeBundles reads what follows a top-level `candidate:` (`fast:`, `stable:`) line: an
// indented `bundles:` line and its block sequence, up to the next top-level line; ok is false for
// anything else (another key in the mapping, a flow sequence, an empty one), which is read whole.
func archetypeBundles(lines *lineCursor) (set bundleSet, ok bool) {
	for line, more := lines.next(); more; line, more = lines.next() {
		if hasTabIndent(line) || isDirectiveOrEnd(line) {
			return set, false
		}
		if isBlankOrComment(line) {
			continue
		}
		n := leadingSpaces(line)
		key, rest, isKey := topLevelKey(line[n:])
		if n == 0 || !isKey || !strings.EqualFold(key, "bundles") || !isBlankOrComment(rest) {
			return set, false
		}
		set.bundlesKey = key
		set.items, set.lines, ok = nestedSequenceItems(lines, n)
		return set, ok
	}
	return set, false
}

// nestedSequenceItems is sequenceItems for the block sequence of a key indented keyIndent
// spaces: its items at keyIndent or deeper, up to the next top-level line. A line the sequence
// does not explain (a sibling key) gives up.
func nestedSequenceItems(lines *lineCursor, keyIndent int) (items [][]byte, starts []int, ok bool) {
	return scanSequence(lines, func(line []byte, n, indent int) seqStep {
		switch {
		case n == 0:
			return seqEnd
		case indent < 0:
			if n < keyIndent || !isItemMarker(line[n:]) {
				return seqGiveUp
			}
			return seqItem
		case n == indent && isItemMarker(line[n:]):
			return seqItem
		case n <= indent:
			return seqGiveUp
		}
		return seqBody
	})
}

func isSplitKey(key string) bool {
	for _, k := range splitKeys {
		if key == k {
			return true
		}
	}
	return false
}

// sequenceItems reads the block sequence that follows `key:` in lines: the text of each item (a
// part of the document, not a copy) and the line (1-based) of each item's first content. It leaves
// lines at the first line after the sequence. ok is false when what follows is not a block
// sequence.
func sequenceItems(lines *lineCursor) (items [][]byte, starts []int, ok bool) {
	return scanSequence(lines, func(line []byte, n, indent int) seqStep {
		switch {
		case indent < 0:
			if !isItemMarker(line[n:]) {
				return seqGiveUp // a flow sequence, a scalar, a mapping: read whole
			}
			return seqItem
		case n == indent && isItemMarker(line[n:]):
			return seqItem
		case n < indent && n > 0, n == 0 && indent > 0 && line[0] == '-':
			return seqGiveUp // a line the sequence's indentation does not explain
		case n < indent || (n == 0 && !isItemMarker(line)):
			return seqEnd
		}
		return seqBody
	})
}

// seqStep is what a block sequence's rule says of a line with text: it goes on the current item,
// starts an item, is the first line after the sequence, or is one the split cannot explain.
type seqStep int

const (
	seqBody seqStep = iota
	seqItem
	seqEnd
	seqGiveUp
)

// scanSequence reads a block sequence's items from lines, asking rule of every line with text
// (n: its indentation; indent: the items' indentation, -1 before the first item), and returns
// what sequenceItems returns. Blank and comment lines belong to the item they are in.
func scanSequence(lines *lineCursor, rule func(line []byte, n, indent int) seqStep) (items [][]byte, starts []int, ok bool) {
	indent := -1
	start := -1 // where the current item's text starts in the document
	flush := func(end int) {
		if start >= 0 {
			items = append(items, lines.doc[start:end])
		}
	}
	contentPending := false
	for line, more := lines.next(); more; line, more = lines.next() {
		if hasTabIndent(line) || isDirectiveOrEnd(line) {
			return nil, nil, false
		}
		if isBlankOrComment(line) {
			continue // part of the current item's text, or before the first item: no item's
		}
		n := leadingSpaces(line)
		switch rule(line, n, indent) {
		case seqGiveUp:
			return nil, nil, false
		case seqEnd:
			flush(lines.start)
			lines.back()
			return items, starts, len(items) > 0
		case seqItem:
			if indent < 0 {
				indent = n
			}
			flush(lines.start)
			start = lines.start
			starts = append(starts, 0)
			contentPending = true
		}
		if contentPending && itemContent(line, n, indent) {
			starts[len(starts)-1] = lines.number
			contentPending = false
		}
	}
	flush(len(lines.doc))
	return items, starts, len(items) > 0
}

// itemContent reports whether line (of indentation n) holds the first content of the current
// item: after the item's `- ` on its own line, or any later line's text.
func itemContent(line []byte, n, indent int) bool {
	if n == indent && isItemMarker(line[n:]) {
		rest := bytes.TrimLeft(line[n+1:], " ")
		return !isBlankOrComment(rest)
	}
	return true
}

// decodeItems decodes each item of the sequence key as the whole document would decode it, and
// joins them into the JSON array the whole document's sequence is. Items are decoded on every
// core, each worker a contiguous run of them, and joined in their order.
func decodeItems(key string, items [][]byte, strict bool) (json.RawMessage, bool) {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(items)/64))
	decoded := make([]json.RawMessage, len(items))
	failed := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(items)/workers, (w+1)*len(items)/workers
		wg.Go(func() {
			prefix := []byte(key + ":\n")
			var buf []byte
			for i := lo; i < hi; i++ {
				buf = append(append(buf[:0], prefix...), items[i]...)
				var one map[string][]json.RawMessage
				if err := noPanic(func() error { return unmarshalYAML(buf, &one, strict) }); err != nil || len(one) != 1 || len(one[key]) != 1 {
					failed[w] = true
					return
				}
				decoded[i] = one[key][0]
			}
		})
	}
	wg.Wait()
	if slices.Contains(failed, true) {
		return nil, false
	}
	size := 2
	for _, d := range decoded {
		size += len(d) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, d := range decoded {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, d...)
	}
	return append(out, ']'), true
}

// unmarshalYAML is yaml.Unmarshal, or yaml.UnmarshalStrict (a key twice is an error) if strict.
func unmarshalYAML(data []byte, v any, strict bool) error {
	if strict {
		return yaml.UnmarshalStrict(data, v)
	}
	return yaml.Unmarshal(data, v)
}

// mayHaveNodeProperties reports whether doc may hold an anchor (&a), an alias (*a), a tag (!t)
// or a merge key (<<), which tie items to each other or change how they decode: any of these
// characters where a YAML node may start. It errs on the side of yes (a `*` starting a quoted
// string's continuation line counts), which only costs the split.
func mayHaveNodeProperties(doc []byte) bool {
	if bytes.Contains(doc, []byte("<<")) {
		return true
	}
	for i, c := range doc {
		if c != '&' && c != '*' && c != '!' {
			continue
		}
		// A node starts after indentation, `- `, `: `, `? `, or a flow indicator.
		j := i - 1
		for j >= 0 && doc[j] == ' ' {
			j--
		}
		if j < 0 {
			return true
		}
		switch doc[j] {
		case '\n', '-', ':', '?', '[', '{', ',':
			return true
		}
	}
	return false
}

// lineCursor reads a document line by line (each line with its newline), knowing where each
// starts and its number.
type lineCursor struct {
	doc        []byte
	pos, start int
	number     int // 1-based number of the line last read
}

func (c *lineCursor) next() ([]byte, bool) {
	if c.pos >= len(c.doc) {
		return nil, false
	}
	c.start = c.pos
	end := len(c.doc)
	if i := bytes.IndexByte(c.doc[c.pos:], '\n'); i >= 0 {
		end = c.pos + i + 1
	}
	c.pos = end
	c.number++
	return c.doc[c.start:end], true
}

// back puts the line last read back, to be read again by the next call of next.
func (c *lineCursor) back() {
	c.pos = c.start
	c.number--
}

func leadingSpaces(line []byte) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

func hasTabIndent(line []byte) bool {
	n := leadingSpaces(line)
	return n < len(line) && line[n] == '\t'
}

// isDirectiveOrEnd: a `%` directive or a `...`/`---` line, which the split does not interpret.
func isDirectiveOrEnd(line []byte) bool {
	return len(line) > 0 && line[0] == '%' || bytes.HasPrefix(line, []byte("...")) || bytes.HasPrefix(line, []byte("---"))
}

func isBlankOrComment(line []byte) bool {
	t := bytes.TrimLeft(line, " ")
	return len(bytes.TrimRight(t, " \r\n")) == 0 || t[0] == '#'
}

// isItemMarker: the text (after indentation) starts a block sequence item, `-` then a space or
// the end of the line.
func isItemMarker(text []byte) bool {
	return len(text) > 0 && text[0] == '-' && (len(text) == 1 || text[1] == ' ' || text[1] == '\n' || text[1] == '\r')
}

// topLevelKey reads a column-0 line `key:` or `key: rest` whose key is a plain scalar of letters,
// digits, `_`, `-` and `.` (anything else is read whole).
func topLevelKey(line []byte) (key string, rest []byte, ok bool) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || (c == '-' && i > 0) {
			i++
			continue
		}
		break
	}
	if i == 0 || i >= len(line) || line[i] != ':' {
		return "", nil, false
	}
	rest = line[i+1:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\n' && rest[0] != '\r' {
		return "", nil, false
	}
	return string(line[:i]), rest, true
}
