package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	yaml2 "go.yaml.in/yaml/v2"
)

// KeyOrder is the order of the keys of a blob as a file holds it, object by object: what an
// in-place edit keeps when it writes the blob again (EncodeLike).
type KeyOrder struct {
	keys  []string
	sub   map[string]*KeyOrder
	elems []*KeyOrder // of an array, by index
}

// KeyOrderOf reads the key order of the blob text (a JSON value, or a YAML document). A text it
// cannot read gives nil: no order to keep.
func KeyOrderOf(text []byte, isYAML bool) *KeyOrder {
	if !isYAML {
		v, err := parseOrdered(text)
		if err != nil {
			return nil
		}
		return v.keyOrder()
	}
	var doc yaml2.MapSlice
	if err := yaml2.Unmarshal(text, &doc); err != nil {
		return nil
	}
	return yamlKeyOrder(doc)
}

func yamlKeyOrder(v any) *KeyOrder {
	switch t := v.(type) {
	case yaml2.MapSlice:
		o := &KeyOrder{sub: map[string]*KeyOrder{}}
		for _, item := range t {
			k := fmt.Sprint(item.Key)
			o.keys = append(o.keys, k)
			o.sub[k] = yamlKeyOrder(item.Value)
		}
		return o
	case []any:
		o := &KeyOrder{}
		for _, e := range t {
			o.elems = append(o.elems, yamlKeyOrder(e))
		}
		return o
	}
	return nil
}

// EncodeLike encodes the blob v (a Package, Channel, Bundle, Deprecation or Meta) for a file of
// format f, ending with a newline: the keys in the order like gives (nil: as the writer orders
// them), keys like lacks placed after the key the writer puts before them; JSON indented by indent
// ("" for one line), YAML as the writer writes it (without the "---" line).
func EncodeLike(v any, f Format, like *KeyOrder, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	val, err := parseOrdered(bytes.TrimSpace(buf.Bytes()))
	if err != nil {
		return nil, err
	}
	val.reorder(like, f == YAML)
	compact := val.appendTo(nil)
	if f == YAML {
		var doc yaml2.MapSlice
		if err := yaml2.Unmarshal(escapeForYAML(compact), &doc); err != nil {
			return nil, err
		}
		return yaml2.Marshal(doc)
	}
	if indent == "" {
		return append(compact, '\n'), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", indent); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// ordered is a JSON value with its object keys in their order; scalars and keys are kept as
// their JSON text.
type ordered struct {
	kind    byte // '{', '[' or 0 for a scalar
	raw     []byte
	keys    []string
	rawKeys [][]byte
	vals    []*ordered
}

var errNotJSON = errors.New("not valid JSON")

func parseOrdered(b []byte) (*ordered, error) {
	if !json.Valid(b) {
		return nil, errNotJSON
	}
	v, i := parseValue(b, skipSpaceAt(b, 0))
	if skipSpaceAt(b, i) != len(b) {
		return nil, errNotJSON
	}
	return v, nil
}

// parseValue parses the valid JSON value at b[i], returning it and the index past it.
func parseValue(b []byte, i int) (*ordered, int) {
	switch b[i] {
	case '{':
		v := &ordered{kind: '{'}
		i = skipSpaceAt(b, i+1)
		for b[i] != '}' {
			end := skipJSONString(b, i)
			rawKey := b[i:end]
			key, _ := jsonString(rawKey)
			i = skipSpaceAt(b, skipSpaceAt(b, end)+1)
			var child *ordered
			child, i = parseValue(b, i)
			v.keys, v.rawKeys, v.vals = append(v.keys, key), append(v.rawKeys, rawKey), append(v.vals, child)
			i = skipSpaceAt(b, i)
			if b[i] == ',' {
				i = skipSpaceAt(b, i+1)
			}
		}
		return v, i + 1
	case '[':
		v := &ordered{kind: '['}
		i = skipSpaceAt(b, i+1)
		for b[i] != ']' {
			var child *ordered
			child, i = parseValue(b, i)
			v.vals = append(v.vals, child)
			i = skipSpaceAt(b, i)
			if b[i] == ',' {
				i = skipSpaceAt(b, i+1)
			}
		}
		return v, i + 1
	}
	end := skipJSONValue(b, i)
	return &ordered{raw: b[i:end]}, end
}

func (v *ordered) keyOrder() *KeyOrder {
	switch v.kind {
	case '{':
		o := &KeyOrder{keys: slices.Clone(v.keys), sub: map[string]*KeyOrder{}}
		for i, k := range v.keys {
			o.sub[k] = v.vals[i].keyOrder()
		}
		return o
	case '[':
		o := &KeyOrder{}
		for _, e := range v.vals {
			o.elems = append(o.elems, e.keyOrder())
		}
		return o
	}
	return nil
}

// reorder puts the keys of v in the order like gives. sorted says the writer sorts keys (YAML),
// which then is the order new keys are placed by, and the order of objects like says nothing of.
func (v *ordered) reorder(like *KeyOrder, sorted bool) {
	switch v.kind {
	case '{':
		canonical := slices.Clone(v.keys)
		if sorted {
			slices.Sort(canonical)
		}
		order := canonical
		if like != nil {
			order = mergeOrder(like.keys, canonical)
		}
		idx := make(map[string]int, len(v.keys))
		for i, k := range v.keys {
			idx[k] = i
		}
		keys, rawKeys, vals := make([]string, 0, len(order)), make([][]byte, 0, len(order)), make([]*ordered, 0, len(order))
		for _, k := range order {
			i := idx[k]
			keys, rawKeys, vals = append(keys, k), append(rawKeys, v.rawKeys[i]), append(vals, v.vals[i])
		}
		v.keys, v.rawKeys, v.vals = keys, rawKeys, vals
		for i, k := range v.keys {
			var sub *KeyOrder
			if like != nil {
				sub = like.sub[k]
			}
			v.vals[i].reorder(sub, sorted)
		}
	case '[':
		for i, e := range v.vals {
			var sub *KeyOrder
			if like != nil && len(like.elems) > 0 {
				sub = like.elems[min(i, len(like.elems)-1)]
			}
			e.reorder(sub, sorted)
		}
	}
}

// mergeOrder orders the keys of canonical: those in old in old's order, each other one placed
// right after the key canonical puts before it (first when none).
func mergeOrder(old, canonical []string) []string {
	have := make(map[string]bool, len(canonical))
	for _, k := range canonical {
		have[k] = true
	}
	var out []string
	placed := map[string]bool{}
	for _, k := range old {
		if have[k] && !placed[k] {
			out = append(out, k)
			placed[k] = true
		}
	}
	for i, k := range canonical {
		if placed[k] {
			continue
		}
		at := 0
		for j := i - 1; j >= 0; j-- {
			if p := slices.Index(out, canonical[j]); p >= 0 {
				at = p + 1
				break
			}
		}
		out = slices.Insert(out, at, k)
		placed[k] = true
	}
	return out
}

func (v *ordered) appendTo(b []byte) []byte {
	switch v.kind {
	case '{':
		b = append(b, '{')
		for i := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, v.rawKeys[i]...), ':')
			b = v.vals[i].appendTo(b)
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendTo(b)
		}
		return append(b, ']')
	}
	return append(b, v.raw...)
}

// IndentOf says how the JSON blob text is indented: "" when it is on one line, else the leading
// white space of its second line (the indentation of its first key).
func IndentOf(text []byte) string {
	nl := bytes.IndexByte(text, '\n')
	if nl < 0 {
		return ""
	}
	rest := text[nl+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	if n == 0 {
		return ""
	}
	return strings.Clone(string(rest[:n]))
}
