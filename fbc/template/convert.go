package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
)

// ConvertBasic turns an FBC stream (JSON or YAML documents) into a basic template as
// `opm alpha convert-template basic` does: every blob becomes an entry, in stream order, with its
// keys in alphabetical order, except bundles, which become {schema, image}.
func ConvertBasic(r io.Reader, name string) (*Basic, error) {
	t := &Basic{Entries: []json.RawMessage{}}
	err := fbc.WalkReader(r, name, func(b fbc.Blob) error {
		entry, err := basicEntry(b)
		if err != nil {
			return err
		}
		t.Entries = append(t.Entries, entry)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// BasicFromCatalog is the basic template of a catalog: its blobs in the order a rendered catalog
// is written (see Write), bundles reduced to their images.
func BasicFromCatalog(c *fbc.Catalog) (*Basic, error) {
	var buf bytes.Buffer
	if err := Write(&buf, c, OutputJSON); err != nil {
		return nil, err
	}
	return ConvertBasic(&buf, "catalog")
}

func basicEntry(b fbc.Blob) (json.RawMessage, error) {
	if b.Schema == fbc.SchemaBundle {
		var bundle struct {
			Schema string `json:"schema"`
			Image  string `json:"image"`
		}
		if err := json.Unmarshal(b.Data, &bundle); err != nil {
			return nil, fmt.Errorf("%s: parse bundle: %v", b.Loc, err)
		}
		return json.Marshal(bundle)
	}
	entry, err := normalizeBlob(b.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Loc, err)
	}
	return entry, nil
}

// WriteBasic writes a basic template as opm's convert-template does: Go's json.MarshalIndent with
// four spaces (HTML characters escaped), or with format "yaml" "---\n", the same converted to YAML
// and an empty line.
func WriteBasic(w io.Writer, t *Basic, format string) error {
	doc := struct {
		Schema  string            `json:"schema"`
		Entries []json.RawMessage `json:"entries"`
	}{SchemaBasic, t.Entries}
	if doc.Entries == nil {
		doc.Entries = []json.RawMessage{}
	}
	data, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return err
	}
	switch format {
	case OutputJSON:
		data = append(data, '\n')
	case OutputYAML:
		y, err := yaml.JSONToYAML(data)
		if err != nil {
			return err
		}
		data = append(append([]byte("---\n"), y...), '\n')
	default:
		return fmt.Errorf("invalid output format %q: use json or yaml", format)
	}
	_, err = w.Write(data)
	return err
}
