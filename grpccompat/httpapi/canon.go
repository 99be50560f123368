package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Key is what a metas query selects a blob by: its schema, and its package and name fields as
// written in the blob.
type Key struct{ Schema, Package, Name string }

func (k Key) String() string {
	s := k.Schema
	if k.Package != "" {
		s += " package=" + k.Package
	}
	if k.Name != "" {
		s += " name=" + k.Name
	}
	return s
}

// Matches reports whether a metas query with these parameters ("" = any) selects the blob.
func (k Key) Matches(schema, pkg, name string) bool {
	return k.Schema != "" && (schema == "" || schema == k.Schema) &&
		(pkg == "" || pkg == k.Package) && (name == "" || name == k.Name)
}

// DecodeStream reads a stream of JSON objects (JSON lines, or `olmcat render`'s indented stream)
// and calls fn with each one's key and canonical form: catalogd's, object keys sorted, no
// insignificant space, numbers as float64 (1.0 and 1 are the same), strings as they mean (not as
// they are escaped). Two blobs are the same when their canonical forms are, whatever server or
// file they come from.
func DecodeStream(r io.Reader, fn func(k Key, canonical []byte) error) error {
	dec := json.NewDecoder(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := 1; ; i++ {
		var v any
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("blob %d of the stream: %w", i, err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("blob %d of the stream is not a JSON object", i)
		}
		buf.Reset()
		if err := enc.Encode(obj); err != nil {
			return err
		}
		k := Key{Schema: str(obj["schema"]), Package: str(obj["package"]), Name: str(obj["name"])}
		if err := fn(k, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); err != nil {
			return err
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
