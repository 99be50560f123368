package model

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// parseProperty decodes a property value the way opm's property.Parse does: known types must
// decode into their Go shape (a JSON null decodes to the zero value, as in opm), unknown types
// only need to be JSON. scratch, when not nil, is reused to check base64 manifests without
// allocating one buffer per bundle object.
func parseProperty(p fbc.Property, scratch *[]byte) error {
	switch p.Type {
	case property.TypePackage, property.TypePackageRequired, property.TypeGVK, property.TypeGVKRequired:
		// Their values decode into structs of strings: an object of plain strings always does.
		if stringObject(p.Value) {
			return nil
		}
	}
	switch p.Type {
	case property.TypePackage:
		var v struct {
			PackageName string `json:"packageName"`
			Version     string `json:"version"`
			Release     string `json:"release"`
		}
		return json.Unmarshal(p.Value, &v)
	case property.TypePackageRequired:
		var v property.PackageRequired
		return json.Unmarshal(p.Value, &v)
	case property.TypeGVK, property.TypeGVKRequired:
		var v property.GVK
		return json.Unmarshal(p.Value, &v)
	case property.TypeBundleObject:
		return parseBundleObject(p.Value, scratch)
	case property.TypeCSVMetadata:
		var v map[string]json.RawMessage
		return json.Unmarshal(p.Value, &v)
	case property.TypeChannel:
		// v1.72 still knows the internal channel-priority property: priority must be an integer.
		var v struct {
			ChannelName string `json:"channelName"`
			Priority    int    `json:"priority"`
		}
		return json.Unmarshal(p.Value, &v)
	default:
		var v json.RawMessage
		return json.Unmarshal(p.Value, &v)
	}
}

var errFieldsExclusive = errors.New("fields 'ref' and 'data' are mutually exclusive")

// parseBundleObject checks an olm.bundle.object value. The common form {"data": "<base64>"} is
// checked in place, since these values hold most of a catalog's bytes; anything else goes through
// encoding/json.
func parseBundleObject(raw json.RawMessage, scratch *[]byte) error {
	if data, ok := plainDataField(raw); ok {
		var buf []byte
		if scratch != nil {
			buf = *scratch
		}
		if n := base64.StdEncoding.DecodedLen(len(data)); cap(buf) < n {
			buf = make([]byte, n)
		}
		_, err := base64.StdEncoding.Decode(buf[:cap(buf)], data)
		if scratch != nil {
			*scratch = buf
		}
		if err != nil {
			return fmt.Errorf("illegal base64 data at input byte %d", base64Offset(err))
		}
		return nil
	}
	var v struct {
		Ref  string `json:"ref"`
		Data []byte `json:"data"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	if v.Ref != "" && len(v.Data) > 0 {
		return errFieldsExclusive
	}
	return nil
}

// plainDataField returns the content of a value that is exactly {"data": "<string without escapes>"}.
func plainDataField(raw []byte) ([]byte, bool) {
	s := scanner{data: raw}
	s.space()
	if !s.consume('{') {
		return nil, false
	}
	s.space()
	if key, ok := s.plainString(); !ok || string(key) != "data" {
		return nil, false
	}
	s.space()
	if !s.consume(':') {
		return nil, false
	}
	s.space()
	content, ok := s.plainString()
	if !ok {
		return nil, false
	}
	s.space()
	if !s.consume('}') {
		return nil, false
	}
	s.space()
	return content, s.i == len(raw)
}

func base64Offset(err error) int64 {
	var corrupt base64.CorruptInputError
	if errors.As(err, &corrupt) {
		return int64(corrupt)
	}
	return 0
}

// parseRange parses a skipRange. blang/semver panics on some malformed ranges, so a panic is
// turned into an error.
func parseRange(s string) (r semver.Range, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("malformed range: %v", p)
		}
	}()
	return semver.ParseRange(s)
}
