package fbc

import (
	"bytes"
	"strings"
	"testing"
)

// Characters encoding/json writes raw but a YAML parser refuses (DEL, C1 controls, U+FFFE) or
// reads as a line break (NEL) are written to YAML all the same, and read back as they were.
func TestWriteYAMLWithCharactersYAMLRefusesRaw(t *testing.T) {
	for _, name := range []string{"op\x7f", "op\u0080x", "op\u009f", "op\u0085", "op\ufffe", "caf\u00e9\x7f\u00e9"} {
		c := &Catalog{
			Packages: []Package{{Schema: SchemaPackage, Name: "p", DefaultChannel: "stable"}},
			Channels: []Channel{{Schema: SchemaChannel, Package: "p", Name: "stable", Entries: []ChannelEntry{{Name: name}}}},
			Bundles:  []Bundle{{Schema: SchemaBundle, Package: "p", Name: name, Image: "quay.io/x/y:1"}},
		}
		var out bytes.Buffer
		if err := Write(&out, c, YAML); err != nil {
			t.Errorf("%+q: %v", name, err)
			continue
		}
		back, err := LoadReader(strings.NewReader(out.String()), "c.yaml")
		if err != nil {
			t.Errorf("%+q: read back: %v\n%s", name, err, out.String())
			continue
		}
		if len(back.Bundles) != 1 || back.Bundles[0].Name != name || back.Channels[0].Entries[0].Name != name {
			t.Errorf("%+q: read back as %+v", name, back.Bundles)
		}
	}
}
