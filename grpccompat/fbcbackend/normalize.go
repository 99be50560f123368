package fbcbackend

import (
	"bytes"
	"encoding/json"
)

// normalizeJSON re-encodes a JSON value the way opm serve sees every catalog blob: decoded into Go
// maps and re-encoded, so object keys come out sorted, numbers go through float64 (integers above
// 2^53 lose precision) and <, > and & stay literal.
func normalizeJSON(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return encodeNoEscape(v)
}

func encodeNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// hasJSONObjectPrefix is true when data, after leading white space, starts with '{': such manifest
// data is taken as JSON verbatim, anything else is YAML.
func hasJSONObjectPrefix(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n\f\v")
	return len(trimmed) > 0 && trimmed[0] == '{'
}
