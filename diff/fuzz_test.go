package diff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// oneBundle is a catalog of one package, one channel and one bundle with the given properties.
func oneBundle(props []fbc.Property) *Side {
	return &Side{Catalog: &fbc.Catalog{
		Packages: []fbc.Package{{Schema: fbc.SchemaPackage, Name: "p", DefaultChannel: "c"}},
		Channels: []fbc.Channel{{Schema: fbc.SchemaChannel, Name: "c", Package: "p", Entries: []fbc.ChannelEntry{{Name: "p.v1"}}}},
		Bundles:  []fbc.Bundle{{Schema: fbc.SchemaBundle, Name: "p.v1", Package: "p", Image: "i", Properties: props}},
	}}
}

var fuzzPropertyTypes = []string{"olm.bundle.object", "olm.csv.metadata", "olm.gvk", "olm.package", "olm.package.required", "x.custom"}

// FuzzBundleProperties feeds arbitrary property values (bundle objects with any data, CSV metadata,
// typed properties) to the comparison: it must never panic, and must give the same report twice.
func FuzzBundleProperties(f *testing.F) {
	csv := `{"kind":"ClusterServiceVersion","metadata":{"name":"p.v1","annotations":{"a":"b"}},"spec":{"description":"d","install":{"x":1}}}`
	f.Add(uint8(0), []byte(`{"data":"`+b64(csv)+`"}`), uint8(1), []byte(`{"description":"d","annotations":{"a":"b"}}`))
	f.Add(uint8(0), []byte(`{"data":"`+b64("kind: CustomResourceDefinition\nmetadata: {name: x}\n")+`"}`), uint8(0), []byte(`{"ref":"objects/x.yaml"}`))
	f.Add(uint8(2), []byte(`{"group":"g","kind":"K","version":"v1"}`), uint8(2), []byte(`{"group":"g","kind":"K","version":"v2"}`))
	f.Add(uint8(3), []byte(`{"packageName":"p","version":"1.0.0"}`), uint8(3), []byte(`{"packageName":"p","version":"not semver"}`))
	f.Add(uint8(0), []byte(`{"data":"!!!"}`), uint8(5), []byte(`[1,2,{"a":null}]`))
	f.Add(uint8(1), []byte(`null`), uint8(4), []byte(`"`))
	f.Fuzz(func(t *testing.T, oldType uint8, oldValue []byte, newType uint8, newValue []byte) {
		oldProps := []fbc.Property{{Type: fuzzPropertyTypes[int(oldType)%len(fuzzPropertyTypes)], Value: oldValue}}
		newProps := []fbc.Property{{Type: fuzzPropertyTypes[int(newType)%len(fuzzPropertyTypes)], Value: newValue}}
		a := Compare(oneBundle(oldProps), oneBundle(newProps))
		b := Compare(oneBundle(oldProps), oneBundle(newProps))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("two comparisons differ:\n%+v\n%+v", a.Findings, b.Findings)
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("report does not marshal: %v", err)
		}
	})
}

// channelFrom builds a channel of up to 8 entries from fuzz bytes: each entry takes 4 bytes choosing
// its replaces, one skip, a skipRange and its version.
func channelFrom(data []byte) *Side {
	s := oneBundle(nil)
	c := s.Catalog
	c.Channels[0].Entries, c.Bundles = nil, nil
	name := func(b byte) string { return fmt.Sprintf("p.v%d", b%10) }
	ranges := []string{"", "<1.5.0", ">=1.0.0 <9.0.0", "not a range", ">=0.0.0"}
	seen := map[string]bool{}
	for i := 0; i+4 <= len(data) && i < 32; i += 4 {
		e := fbc.ChannelEntry{Name: name(data[i])}
		if seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		if data[i+1]%3 != 0 {
			e.Replaces = name(data[i+1])
		}
		if data[i+2]%4 == 0 {
			e.Skips = []string{name(data[i+2] / 4)}
		}
		e.SkipRange = ranges[int(data[i+3])%len(ranges)]
		c.Channels[0].Entries = append(c.Channels[0].Entries, e)
		version := fmt.Sprintf(`{"packageName":"p","version":"1.%d.0"}`, data[i+3]%7)
		c.Bundles = append(c.Bundles, fbc.Bundle{Schema: fbc.SchemaBundle, Name: e.Name, Package: "p", Image: "i",
			Properties: []fbc.Property{{Type: "olm.package", Value: json.RawMessage(version)}}})
	}
	return s
}

// FuzzUpgradeGraphs compares arbitrary channel graphs (cycles, dangling edges, several heads, bad
// ranges): no panic, and every stranded bundle could reach the head before.
func FuzzUpgradeGraphs(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 1, 1, 4, 2, 2, 2, 8, 2}, []byte{0, 0, 1, 2, 2, 1, 4, 2})
	f.Add([]byte{1, 2, 0, 1, 2, 1, 0, 1}, []byte{1, 2, 3, 1, 2, 1, 0, 1, 3, 2, 0, 3})
	f.Add([]byte{5, 0, 0, 0, 6, 5, 20, 3}, []byte{})
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		r := Compare(channelFrom(oldData), channelFrom(newData))
		reach := map[string]Upgrade{}
		for _, u := range r.Upgrades {
			reach[u.Bundle] = u
		}
		for _, fd := range r.Findings {
			if fd.Kind != Stranded {
				continue
			}
			u, ok := reach[fd.Bundle]
			if fd.Generations() != "v1" && (!ok || !u.Old.ReachesHead || u.New.ReachesHead) {
				t.Fatalf("stranded %s without losing its way to the head: %+v", fd.Bundle, u)
			}
			if fd.Generations() != "v0" && (!ok || u.Old.V1 == nil || u.New.V1 == nil || !u.Old.V1.ReachesTop || u.New.V1.ReachesTop) {
				t.Fatalf("stranded %s under OLM v1 without losing its way to the top: %+v", fd.Bundle, u)
			}
		}
	})
}

func b64(s string) string {
	out, _ := json.Marshal([]byte(s))
	return string(out[1 : len(out)-1])
}
