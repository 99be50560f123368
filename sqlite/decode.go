package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/internal/jsonscan"
)

// Decoders for the values stored in an index database. They never panic; every malformed input is
// an error that says what was wrong.

// SplitObjects splits the operatorbundle.bundle column (manifests as JSON objects, concatenated,
// each followed by a newline) into the exact bytes of each object, as opm's
// BundleStringToObjectStrings does with a JSON decoder. Every object is validated.
func SplitObjects(blob []byte) ([][]byte, error) {
	var out [][]byte
	i := 0
	for {
		i = jsonscan.SkipSpace(blob, i)
		if i >= len(blob) {
			return out, nil
		}
		if blob[i] != '{' {
			return nil, fmt.Errorf("manifest %d of the bundle column is not a JSON object", len(out)+1)
		}
		n, ok := jsonscan.ValidValueEnd(blob[i:])
		if !ok {
			return nil, fmt.Errorf("manifest %d of the bundle column: %w", len(out)+1, objectError(blob[i:]))
		}
		out = append(out, blob[i:i+n:i+n])
		i += n
	}
}

// objectError says why the value at the start of b is not valid JSON, as encoding/json says it.
func objectError(b []byte) error {
	n, err := valueEnd(b)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(b[:n], &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// SplitSkips splits the operatorbundle.skips column: names joined with ",", "" for none.
func SplitSkips(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// GVK is the value of an olm.gvk property or dependency.
type GVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// DecodeGVK decodes an olm.gvk value. Unknown keys (migration 008 wrote a "type" key) are ignored.
func DecodeGVK(value string) (GVK, error) {
	var g GVK
	if err := decodeObject(value, &g); err != nil {
		return GVK{}, fmt.Errorf("olm.gvk value %s: %w", abbreviate(value), err)
	}
	return g, nil
}

// PackageValue is the value of an olm.package property (or dependency, where Version is a range).
type PackageValue struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// DecodePackage decodes an olm.package value.
func DecodePackage(value string) (PackageValue, error) {
	var p PackageValue
	if err := decodeObject(value, &p); err != nil {
		return PackageValue{}, fmt.Errorf("olm.package value %s: %w", abbreviate(value), err)
	}
	return p, nil
}

func decodeObject(value string, into any) error {
	trimmed := strings.TrimSpace(value)
	if trimmed == "" || trimmed == "null" {
		return errors.New("value is missing")
	}
	if trimmed[0] != '{' {
		return errors.New("value is not a JSON object")
	}
	return json.Unmarshal([]byte(trimmed), into)
}

// abbreviate shortens a stored value for an error message.
func abbreviate(s string) string {
	const max = 120
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q...", s[:max])
}
