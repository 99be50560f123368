package csvmeta

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// Reading a bundle's ClusterServiceVersion among its manifests, and what opm takes from it for the
// package (the icon). The SQLite codec and the template renderer both read bundles' manifests, so
// this lives with the bundle code, not in either of them.

// FindCSV returns the first ClusterServiceVersion among the objects (valid JSON manifests), or nil
// when there is none. An object is a CSV when its top-level "kind" is "ClusterServiceVersion" as a
// map decoding sees it: exact key, the last occurrence wins.
func FindCSV(objects [][]byte) []byte {
	for _, o := range objects {
		if kind, ok := topLevelString(o, "kind"); ok && kind == "ClusterServiceVersion" {
			return o
		}
	}
	return nil
}

// PackageIcon reads the first spec.icon of a CSV as opm's populatePackageIcons does. It returns nil
// (and no error) when the CSV has no icon, its data is empty, or the data is not base64 even
// without spaces (opm only logs a warning then). An error means the CSV itself does not decode.
func PackageIcon(csv []byte) (*fbc.Icon, error) {
	var doc struct {
		Spec struct {
			Icon []struct {
				Data      string `json:"base64data"`
				MediaType string `json:"mediatype"`
			} `json:"icon"`
		} `json:"spec"`
	}
	trimmed := strings.TrimSpace(string(csv))
	switch {
	case trimmed == "" || trimmed == "null":
		return nil, errors.New("ClusterServiceVersion: value is missing")
	case trimmed[0] != '{':
		return nil, errors.New("ClusterServiceVersion: value is not a JSON object")
	}
	if err := json.Unmarshal([]byte(trimmed), &doc); err != nil {
		return nil, fmt.Errorf("ClusterServiceVersion: %w", err)
	}
	if len(doc.Spec.Icon) == 0 {
		return nil, nil
	}
	first := doc.Spec.Icon[0]
	data, err := base64.StdEncoding.DecodeString(first.Data)
	if err != nil {
		// opm retries once without spaces, which some generators put into long base64 strings.
		data, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(first.Data, " ", ""))
		if err != nil {
			return nil, nil
		}
	}
	if len(data) == 0 {
		return nil, nil
	}
	return &fbc.Icon{Data: data, MediaType: first.MediaType}, nil
}

// topLevelString returns the string value of key in a valid JSON object, as a map decoding sees it
// (exact key match, the last occurrence wins), without decoding the object: ok is false when the
// key is absent or not a string.
func topLevelString(obj []byte, key string) (value string, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return "", false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return value, ok
		}
		n, found := stringEnd(obj[i:])
		if !found {
			return value, ok
		}
		rawKey := obj[i : i+n]
		i = skipSpace(obj, i+n)
		if i >= len(obj) || obj[i] != ':' {
			return value, ok
		}
		i = skipSpace(obj, i+1)
		m, found := valueEnd(obj[i:])
		if !found {
			return value, ok
		}
		if keyEquals(rawKey, key) {
			var s string
			if json.Unmarshal(obj[i:i+m], &s) == nil {
				value, ok = s, true
			} else {
				value, ok = "", false
			}
		}
		i = skipSpace(obj, i+m)
		if i >= len(obj) || obj[i] != ',' {
			return value, ok
		}
		i++
	}
}

// keyEquals compares a raw JSON string (with quotes) to a plain key, decoding escapes when present.
func keyEquals(raw []byte, key string) bool {
	if len(raw) == len(key)+2 && string(raw[1:len(raw)-1]) == key {
		return true
	}
	if strings.IndexByte(string(raw), '\\') >= 0 {
		var s string
		return json.Unmarshal(raw, &s) == nil && s == key
	}
	return false
}

// valueEnd returns the index just past the JSON value starting at b[0], tracking only strings and
// nesting (the object is valid JSON); found is false when it is truncated.
func valueEnd(b []byte) (n int, found bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch b[0] {
	case '"':
		return stringEnd(b)
	case '{', '[':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				n, ok := stringEnd(b[i:])
				if !ok {
					return 0, false
				}
				i += n - 1
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
	for i, c := range b {
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i, true
		}
	}
	return len(b), true
}

// stringEnd returns the index just past the JSON string starting at b[0] == '"'.
func stringEnd(b []byte) (int, bool) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
