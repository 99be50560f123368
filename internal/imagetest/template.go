package imagetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

// RenderBasicTemplate is a stand-in for fbc/template's renderer in tests of the code around it:
// it renders a basic template whose olm.bundle entries are {schema, image}, passing every other
// entry through and rendering the bundles in entry order. It is not opm's renderer: no output
// order, no checks.
func RenderBasicTemplate(ctx context.Context, data []byte, name string, bundles template.BundleRenderer) ([]byte, *template.Locations, error) {
	var tmpl struct {
		Schema  string
		Entries []json.RawMessage
	}
	if err := yaml.Unmarshal(data, &tmpl); err != nil {
		return nil, nil, err
	}
	if tmpl.Schema != fbc.SchemaTemplateBasic {
		return nil, nil, errors.New(name + ": the test renderer renders basic templates only")
	}
	var refs []string
	for _, e := range tmpl.Entries {
		var m struct{ Schema, Image string }
		if err := json.Unmarshal(e, &m); err != nil {
			return nil, nil, err
		}
		if m.Schema == fbc.SchemaBundle {
			refs = append(refs, m.Image)
		}
	}
	rendered, err := bundles.RenderBundles(ctx, refs)
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	for _, e := range tmpl.Entries {
		var m struct{ Schema string }
		_ = json.Unmarshal(e, &m)
		if m.Schema == fbc.SchemaBundle {
			if e, err = json.Marshal(rendered[0]); err != nil {
				return nil, nil, err
			}
			rendered = rendered[1:]
		}
		out.Write(e)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil, nil
}
