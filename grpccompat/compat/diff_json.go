package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// bothJSON decodes two strings that are each one JSON object or array.
func bothJSON(l, r string) (lv, rv any, ok bool) {
	decode := func(s string) (any, bool) {
		t := strings.TrimSpace(s)
		if len(s) > maxJSONText || t == "" || (t[0] != '{' && t[0] != '[') {
			return nil, false
		}
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil, false
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, false
		}
		return v, true
	}
	if lv, ok = decode(l); !ok {
		return nil, nil, false
	}
	rv, ok = decode(r)
	return lv, rv, ok
}

// jsonDiff walks two decoded JSON values: object members by sorted key, arrays by index (aligned
// like list fields when their lengths differ).
type jsonDiff struct {
	found []jsonChange // the first maxJSONLines
	count int
}

type jsonChange struct {
	path     string
	l, r     any
	lok, rok bool // present on that side
}

func (j *jsonDiff) note(c jsonChange) {
	j.count++
	if len(j.found) < maxJSONLines {
		j.found = append(j.found, c)
	}
}

func (j *jsonDiff) walk(path string, a, b any) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(av)+len(bv))
			for k := range av {
				keys = append(keys, k)
			}
			for k := range bv {
				if _, ok := av[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				va, oka := av[k]
				vb, okb := bv[k]
				if oka && okb {
					j.walk(path+jsonKey(k), va, vb)
				} else {
					j.note(jsonChange{path + jsonKey(k), va, vb, oka, okb})
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			eq := func(x, y int) bool { return reflect.DeepEqual(av[x], bv[y]) }
			for _, p := range align(len(av), len(bv), eq) {
				at := path + "[" + p.index() + "]"
				switch {
				case p.r < 0:
					j.note(jsonChange{at, av[p.l], nil, true, false})
				case p.l < 0:
					j.note(jsonChange{at, nil, bv[p.r], false, true})
				default:
					j.walk(at, av[p.l], bv[p.r])
				}
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		j.note(jsonChange{path, a, b, true, true})
	}
}

func jsonKey(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}

func (c jsonChange) values() (string, string) {
	ls, lok := c.l.(string)
	rs, rok := c.r.(string)
	if lok && rok {
		return shortenPair(ls, rs)
	}
	return jsonText(c.l, c.lok), jsonText(c.r, c.rok)
}

func jsonText(v any, present bool) string {
	if !present {
		return "(absent)"
	}
	if s, ok := v.(string); ok {
		return window(s, 0)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return printable(fmt.Sprint(v))
	}
	return cutWidth(printable(strings.TrimSuffix(b.String(), "\n")), messageWidth)
}
