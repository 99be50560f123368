package template

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// jsonLines reads the lines of a template's parts (see Lines) from data, whose first value is a
// valid JSON object (firstDocument decoded it as JSON), as findLines reads them from the YAML
// node tree of that value: the first key's line, and the line where each item of entries,
// substitutions and each archetype's bundles starts (keys matched without regard to case, the
// last one winning). It scans the text once and builds no tree: the node parser holds some
// twenty times the text of a large JSON template. It returns nil for anything else.
func jsonLines(data []byte) (lines *Lines) {
	defer func() {
		if recover() != nil { // not the valid JSON the caller promised: no lines
			lines = nil
		}
	}()
	s := jsonScanner{data: data, line: 1}
	p := s.space(0)
	if data[p] != '{' {
		return nil
	}
	l := &Lines{Document: s.lineAt(p)}
	first := true
	s.object(p, func(key string, keyAt, valueAt int) {
		if first {
			l.Document, first = s.lineAt(keyAt), false
		}
		switch k := strings.ToLower(key); {
		case k == "entries":
			l.Entries = s.itemLines(valueAt)
		case k == "substitutions":
			l.Substitutions = s.itemLines(valueAt)
		case slices.Contains(archetypes, k):
			i := slices.Index(archetypes, k)
			l.Bundles[i] = nil
			if data[valueAt] == '{' {
				s.object(valueAt, func(key string, _, valueAt int) {
					if strings.EqualFold(key, "bundles") {
						l.Bundles[i] = s.itemLines(valueAt)
					}
				})
			}
		}
	})
	return l
}

// jsonScanner walks valid JSON text, counting lines as it goes forward.
type jsonScanner struct {
	data []byte
	// counted is how far lines were counted; line the line (1-based) at counted.
	counted, line int
}

// lineAt is the line of offset p, p at or after every offset asked before.
func (s *jsonScanner) lineAt(p int) int {
	s.line += bytes.Count(s.data[s.counted:p], []byte("\n"))
	s.counted = p
	return s.line
}

func (s *jsonScanner) space(p int) int {
	for p < len(s.data) {
		switch s.data[p] {
		case ' ', '\t', '\r', '\n':
			p++
		default:
			return p
		}
	}
	return p
}

// object calls member with each member of the object at p (its key, where the key and the value
// start), in order, and returns the offset after the object. member may scan the value only
// forward and not past its end.
func (s *jsonScanner) object(p int, member func(key string, keyAt, valueAt int)) int {
	p = s.space(p + 1) // past '{'
	for s.data[p] != '}' {
		keyAt := p
		end := s.str(p)
		var key string
		if err := json.Unmarshal(s.data[keyAt:end], &key); err != nil {
			panic(err)
		}
		p = s.space(end)
		p = s.space(p + 1) // past ':'
		member(key, keyAt, p)
		p = s.space(s.value(p))
		if s.data[p] == ',' {
			p = s.space(p + 1)
		}
	}
	return p + 1
}

// itemLines are the lines where the items of the array at p start; nil if p is no array.
func (s *jsonScanner) itemLines(p int) []int {
	if s.data[p] != '[' {
		return nil
	}
	out := []int{}
	p = s.space(p + 1)
	for s.data[p] != ']' {
		out = append(out, s.lineAt(p))
		p = s.space(s.value(p))
		if s.data[p] == ',' {
			p = s.space(p + 1)
		}
	}
	return out
}

// value returns the offset after the value at p.
func (s *jsonScanner) value(p int) int {
	switch s.data[p] {
	case '"':
		return s.str(p)
	case '{', '[':
		depth := 0
		for {
			switch s.data[p] {
			case '"':
				p = s.str(p)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return p + 1
				}
			}
			p++
		}
	}
	for p < len(s.data) {
		switch s.data[p] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return p
		}
		p++
	}
	return p
}

// str returns the offset after the string at p.
func (s *jsonScanner) str(p int) int {
	if s.data[p] != '"' {
		panic("not a string")
	}
	for p++; ; p++ {
		switch s.data[p] {
		case '\\':
			p++
		case '"':
			return p + 1
		}
	}
}
