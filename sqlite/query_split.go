package sqlite

import (
	"encoding/json"
	"strings"
)

// querySplitValues splits a blob into its top-level JSON values with encoding/json's stream
// decoder, whose errors are the answer for a malformed blob.
func querySplitValues(blob string) ([]string, error) {
	var objects []string
	dec := json.NewDecoder(strings.NewReader(blob))
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		// The object as a slice of the blob: no copy of what can be megabytes of manifests.
		end := int(dec.InputOffset())
		objects = append(objects, blob[end-len(raw):end])
	}
	return objects, nil
}

// querySplitObjectsFast splits a blob made only of JSON objects (the form opm writes) in one pass
// plus a validity check per object, much cheaper than the stream decoder. It answers ok=false for
// anything else (other values, stray brackets, invalid JSON), which querySplitValues then
// decides, so both give the same objects whenever this one succeeds.
func querySplitObjectsFast(blob string) (objects []string, ok bool) {
	for i := 0; i < len(blob); {
		switch blob[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '{':
		default:
			return nil, false
		}
		end, found := queryObjectEnd(blob, i)
		if !found || !json.Valid([]byte(blob[i:end])) {
			return nil, false
		}
		objects = append(objects, blob[i:end])
		i = end
	}
	return objects, true
}

// queryObjectEnd returns the offset just past the bracket that closes the object opening at
// start, counting brackets outside strings. The caller validates the slice.
func queryObjectEnd(blob string, start int) (int, bool) {
	depth := 0
	for i := start; i < len(blob); i++ {
		switch blob[i] {
		case '"':
			for i++; i < len(blob) && blob[i] != '"'; i++ {
				if blob[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}
