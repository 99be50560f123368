package csvmeta

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/jsonscan"
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

// BundleCSV is the ClusterServiceVersion among a bundle's olm.bundle.object properties (those that
// decode), nil if none: what Migrate takes.
func BundleCSV(b *fbc.Bundle) []byte {
	var objects [][]byte
	for _, p := range b.Properties {
		if p.Type != property.TypeBundleObject {
			continue
		}
		if o, err := property.DecodeBundleObject(p.Value); err == nil && len(o.Data) > 0 {
			objects = append(objects, o.Data)
		}
	}
	return FindCSV(objects)
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
	i := jsonscan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return "", false
	}
	i++
	for {
		i = jsonscan.SkipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return value, ok
		}
		n, found := jsonscan.StringEnd(obj[i:])
		if !found {
			return value, ok
		}
		rawKey := obj[i : i+n]
		i = jsonscan.SkipSpace(obj, i+n)
		if i >= len(obj) || obj[i] != ':' {
			return value, ok
		}
		i = jsonscan.SkipSpace(obj, i+1)
		m, found := jsonscan.ValueEnd(obj[i:])
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
		i = jsonscan.SkipSpace(obj, i+m)
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
