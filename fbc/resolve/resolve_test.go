package resolve

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// catalogOf builds a one-package catalog "p": bundles by name and version (in this order), a
// channel per entry of chans ("name: entry[<replaces][!skip][~skipRange]" lists), deprecated
// bundles, and extra properties per bundle.
func catalogOf(t *testing.T, bundles [][2]string, chans map[string][]string, deprecated []string, props map[string]string) *Resolver {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(`{"schema":"olm.package","name":"p","defaultChannel":"stable"}` + "\n")
	names := make([]string, 0, len(chans))
	for n := range chans {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var entries []string
		for _, e := range chans[n] {
			name, rest, _ := strings.Cut(e, "<")
			ent := fmt.Sprintf(`{"name":%q`, name)
			for _, part := range strings.Split(rest, "|") {
				switch {
				case part == "":
				case strings.HasPrefix(part, "!"):
					ent += fmt.Sprintf(`,"skips":[%q]`, part[1:])
				case strings.HasPrefix(part, "~"):
					ent += fmt.Sprintf(`,"skipRange":%q`, part[1:])
				default:
					ent += fmt.Sprintf(`,"replaces":%q`, part)
				}
			}
			entries = append(entries, ent+"}")
		}
		fmt.Fprintf(&sb, `{"schema":"olm.channel","package":"p","name":%q,"entries":[%s]}`+"\n", n, strings.Join(entries, ","))
	}
	for _, b := range bundles {
		extra := props[b[0]]
		if extra != "" {
			extra = "," + extra
		}
		fmt.Fprintf(&sb, `{"schema":"olm.bundle","package":"p","name":%q,"image":"i","properties":[{"type":"olm.package","value":{"packageName":"p","version":%q}}%s]}`+"\n", b[0], b[1], extra)
	}
	if len(deprecated) > 0 {
		var entries []string
		for _, d := range deprecated {
			entries = append(entries, fmt.Sprintf(`{"reference":{"schema":"olm.bundle","name":%q},"message":"old"}`, d))
		}
		fmt.Fprintf(&sb, `{"schema":"olm.deprecations","package":"p","entries":[%s]}`+"\n", strings.Join(entries, ","))
	}
	cat, err := fbc.LoadReader(strings.NewReader(sb.String()), "catalog.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, sb.String())
	}
	r, err := New(cat)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveRules(t *testing.T) {
	bundles := [][2]string{
		{"p.v1.0.0", "1.0.0"}, {"p.v1.1.0", "1.1.0"}, {"p.v1.2.0-rc.1", "1.2.0-rc.1"},
		{"p.v1.1.0-b2", "1.1.0+2"}, {"p.v1.1.0-b10", "1.1.0+10"}, {"p.v2.0.0", "2.0.0"}, {"p.v2.0.0-again", "2.0.0"},
		{"p.v0.9.0", "0.9.0"},
	}
	chans := map[string][]string{
		"stable": {"p.v1.0.0", "p.v1.1.0<p.v1.0.0", "p.v1.1.0-b2<p.v1.1.0", "p.v1.1.0-b10<p.v1.1.0-b2|!p.v1.1.0"},
		"fast":   {"p.v1.2.0-rc.1<~>=1.0.0 <1.2.0-rc.1", "p.v2.0.0<p.v1.2.0-rc.1", "p.v2.0.0-again", "p.v0.9.0"},
	}
	r := catalogOf(t, bundles, chans, nil, nil)
	inst := func(name, version string) *Installed { return &Installed{Name: name, Version: version} }
	for _, tc := range []struct {
		name       string
		q          Query
		bundle     string
		err        string
		successors []string
	}{
		// highest version of every channel; equal versions keep catalog order; the channel head
		// (p.v0.9.0, last entry of fast) plays no part
		{name: "all channels", q: Query{Package: "p"}, bundle: "p.v2.0.0"},
		// a release in build metadata counts, numerically: +10 above +2 above none
		{name: "release", q: Query{Package: "p", Channels: []string{"stable"}}, bundle: "p.v1.1.0-b10"},
		// a prerelease matches only a range that names one
		{name: "range without prerelease", q: Query{Package: "p", Version: ">=1.1.0 <2.0.0"}, bundle: "p.v1.1.0-b10"},
		{name: "range naming prerelease", q: Query{Package: "p", Version: ">=1.2.0-0 <2.0.0"}, bundle: "p.v1.2.0-rc.1"},
		{name: "bad range", q: Query{Package: "p", Version: ">=1.0 <<2"}, err: `desired version range ">=1.0 <<2" is invalid: improper constraint: ">=1.0 <<2"`},
		{name: "no channel", q: Query{Package: "p", Channels: []string{"nope", "none"}}, err: `no bundles found for package "p" in channels [nope none]`},
		{name: "no package", q: Query{Package: "q", Version: "1.x"}, err: `no bundles found for package "q" matching version "1.x"`},
		// successors: replaces, skips, skipRange, the same version; in the asked channels only
		{name: "upgrade by skipRange", q: Query{Package: "p", Channels: []string{"fast"}, Installed: inst("p.v1.1.0", "1.1.0")},
			bundle: "p.v1.2.0-rc.1", successors: []string{"p.v1.1.0", "p.v1.2.0-rc.1"}},
		{name: "upgrade in stable", q: Query{Package: "p", Channels: []string{"stable"}, Installed: inst("p.v1.1.0", "1.1.0")},
			bundle: "p.v1.1.0-b10", successors: []string{"p.v1.1.0", "p.v1.1.0-b2", "p.v1.1.0-b10"}},
		{name: "upgrade any channel", q: Query{Package: "p", Installed: inst("p.v1.2.0-rc.1", "1.2.0-rc.1")},
			bundle: "p.v2.0.0", successors: []string{"p.v1.2.0-rc.1", "p.v2.0.0"}},
		// the installed bundle's version matches bundles outside the asked channels too
		{name: "same version elsewhere", q: Query{Package: "p", Channels: []string{"fast"}, Installed: inst("p.v1.0.0", "1.0.0")},
			bundle: "p.v1.2.0-rc.1", successors: []string{"p.v1.0.0", "p.v1.2.0-rc.1"}},
		{name: "no successor", q: Query{Package: "p", Channels: []string{"fast"}, Installed: inst("p.v2.0.0-again", "2.0.0")},
			bundle: "p.v2.0.0", successors: []string{"p.v2.0.0", "p.v2.0.0-again"}},
		{name: "stuck with range", q: Query{Package: "p", Version: "<1.0.0", Installed: inst("p.v2.0.0", "2.0.0")},
			err:        `error upgrading from currently installed version "2.0.0": no bundles found for package "p" matching version "<1.0.0"`,
			successors: []string{"p.v2.0.0", "p.v2.0.0-again"}},
		{name: "self certified", q: Query{Package: "p", Version: "<1.0.0", Policy: SelfCertified, Installed: inst("p.v2.0.0", "2.0.0")}, bundle: "p.v0.9.0"},
		{name: "bad installed version", q: Query{Package: "p", Installed: inst("x", "v1")},
			err: `error walking catalogs: error finding upgrade edges: failed to get version and release of installed bundle: No Major.Minor.Patch elements found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Resolve(tc.q)
			if got.Bundle != tc.bundle || got.Error != tc.err || !slices.Equal(got.Successors, tc.successors) {
				t.Errorf("got %+v\nwant bundle %q error %q successors %v", got, tc.bundle, tc.err, tc.successors)
			}
		})
	}
}

func TestResolveDeprecatedLastAndDependencies(t *testing.T) {
	bundles := [][2]string{{"p.v1", "1.0.0"}, {"p.v2", "2.0.0"}, {"p.v3", "3.0.0"}}
	chans := map[string][]string{"stable": {"p.v1", "p.v2<p.v1", "p.v3<p.v2"}}
	r := catalogOf(t, bundles, chans, []string{"p.v3"}, map[string]string{
		"p.v2": `{"type":"olm.gvk.required","value":{"group":"g","kind":"K","version":"v1"}}`})
	got := r.Resolve(Query{Package: "p"})
	want := `validating bundle "p.v2": bundle "p.v2" has a dependency declared via property "olm.gvk.required" which is currently not supported`
	if got.Error != want || got.PickedBeforeValidation != "p.v2" || got.Bundle != "" {
		t.Errorf("deprecated p.v3 sorts after p.v2, whose dependency is refused with no fallback: got %+v", got)
	}
	if got := r.Resolve(Query{Package: "p", Version: ">=3.0.0"}); got.Bundle != "p.v3" || got.BundleVersion != "3.0.0" {
		t.Errorf("a deprecated bundle is still picked when it is the only candidate: got %+v", got)
	}
	if v, ok := r.BundleVersion("p", "p.v2"); !ok || v != "2.0.0" {
		t.Errorf("BundleVersion: %q %v", v, ok)
	}
	if _, ok := r.BundleVersion("p", "p.v9"); ok {
		t.Error("BundleVersion of a bundle not in the catalog")
	}
}

// Bundles whose version cannot be read sort last; picked, they are operator-controller's error;
// a skipRange that does not parse covers nothing.
func TestResolveUnreadableVersions(t *testing.T) {
	text := `{"schema":"olm.package","name":"p"}
{"schema":"olm.channel","package":"p","name":"c","entries":[{"name":"p.none"},{"name":"p.bad","skipRange":">>1.0"},{"name":"p.v1","skipRange":"<2.0.0"}]}
{"schema":"olm.bundle","package":"p","name":"p.none","image":"i","properties":[]}
{"schema":"olm.bundle","package":"p","name":"p.bad","image":"i","properties":[{"type":"olm.package","value":{"packageName":"p","version":"one"}}]}
{"schema":"olm.bundle","package":"p","name":"p.v1","image":"i","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`
	cat, err := fbc.LoadReader(strings.NewReader(text), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(cat)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Resolve(Query{Package: "p"}); got.Bundle != "p.v1" {
		t.Errorf("the readable version first: %+v", got)
	}
	got := r.Resolve(Query{Package: "p", Installed: &Installed{Name: "p.old", Version: "0.5.0"}})
	if got.Bundle != "p.v1" || !slices.Equal(got.Successors, []string{"p.v1"}) {
		t.Errorf("skipRange <2.0.0 covers 0.5.0, >>1.0 covers nothing: %+v", got)
	}
	got = r.Resolve(Query{Package: "p", Policy: SelfCertified, Installed: &Installed{Name: "p.v1", Version: "1.0.0"}, Channels: []string{"c"}, Version: "<1.0.0"})
	if want := `error upgrading from currently installed version "1.0.0": no bundles found for package "p" matching version "<1.0.0" in channels [c]`; got.Error != want || got.Successors != nil {
		t.Errorf("got %+v, want %q and no successors (SelfCertified)", got, want)
	}
	// only the version-less bundles left: the first is picked, and its version is the error
	cat.Bundles = cat.Bundles[:2]
	r, _ = New(cat)
	got = r.Resolve(Query{Package: "p"})
	if want := `error getting resolved bundle version for bundle "p.none": no package property found in bundle "p.none"`; got.Error != want {
		t.Errorf("got %+v, want %q", got, want)
	}
}
