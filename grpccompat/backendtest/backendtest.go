// Package backendtest is a conformance suite that every api.Backend must pass, whatever its
// data source: the invariants that hold for any valid catalog in both of opm's servers (lookups
// agree with listings, heads are served, edges and providers are found from both ends, misses are
// code Unknown, streams stop when the client goes away, concurrent use is safe). Backend-specific
// answers are checked elsewhere by replaying recorded opm answers.
//
//	func TestBackend(t *testing.T) {
//		backendtest.Run(t, func(t *testing.T) api.Backend { return openMyBackend(t) })
//	}
package backendtest

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/replay"
)

// NewBackend opens a backend over a valid, non-empty catalog; Run closes it.
type NewBackend func(t *testing.T) api.Backend

// Run runs every check against one backend made by newBackend (the checks only read), and
// closes it at the end.
func Run(t *testing.T, newBackend NewBackend) {
	b := newBackend(t)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	s := takeSnapshot(t, b)
	checks := []struct {
		name string
		fn   func(*testing.T, *snapshot)
	}{
		{"PackagesHaveServedChannels", packagesHaveServedChannels},
		{"ListedBundlesAreServed", listedBundlesAreServed},
		{"ListBundlesOmitsManifestsOfImages", listBundlesOmitsManifestsOfImages},
		{"HeadsAreListed", headsAreListed},
		{"ReplacesEdgesFoundFromBothEnds", replacesEdgesFoundFromBothEnds},
		{"ProvidersAreFound", providersAreFound},
		{"LatestAndDefaultProvidersAreListed", latestAndDefaultProvidersAreListed},
		{"MissesAreCodeUnknown", missesAreCodeUnknown},
		{"ListBundlesStopsWhenSendFails", listBundlesStopsWhenSendFails},
		{"ConcurrentUse", concurrentUse},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, s) })
	}
}

// snapshot is what the backend lists, read once.
type snapshot struct {
	b        api.Backend
	ctx      context.Context
	packages map[string]*api.Package
	rows     []*api.Bundle
	byKey    map[[3]string]*api.Bundle // (package, channel, bundle) -> ListBundles row
}

func takeSnapshot(t *testing.T, b api.Backend) *snapshot {
	t.Helper()
	s := &snapshot{b: b, ctx: context.Background(), packages: map[string]*api.Package{}, byKey: map[[3]string]*api.Bundle{}}
	names, err := b.ListPackages(s.ctx)
	if err != nil {
		t.Fatalf("ListPackages: %v", err)
	}
	if len(names) == 0 {
		t.Fatal("ListPackages is empty; the suite needs a non-empty catalog")
	}
	for _, n := range names {
		p, err := b.GetPackage(s.ctx, n)
		if err != nil {
			t.Fatalf("GetPackage(%q) of a listed package: %v", n, err)
		}
		s.packages[n] = p
	}
	if err := b.ListBundles(s.ctx, func(x *api.Bundle) error { s.rows = append(s.rows, x); return nil }); err != nil {
		t.Fatalf("ListBundles: %v", err)
	}
	for _, r := range s.rows {
		k := [3]string{r.PackageName, r.ChannelName, r.CsvName}
		if _, dup := s.byKey[k]; dup {
			t.Errorf("ListBundles sent (%s, %s, %s) twice", k[0], k[1], k[2])
		}
		s.byKey[k] = r
	}
	return s
}

func (s *snapshot) channel(pkg, ch string) *api.Channel {
	if p := s.packages[pkg]; p != nil {
		for _, c := range p.Channels {
			if c.Name == ch {
				return c
			}
		}
	}
	return nil
}

func packagesHaveServedChannels(t *testing.T, s *snapshot) {
	for name, p := range s.packages {
		if p.Name != name {
			t.Errorf("GetPackage(%q) answered package %q", name, p.Name)
		}
		if len(p.Channels) == 0 {
			t.Errorf("package %q has no channels", name)
		}
		if p.DefaultChannelName != "" && s.channel(name, p.DefaultChannelName) == nil {
			t.Errorf("package %q: default channel %q is not one of its channels", name, p.DefaultChannelName)
		}
		for _, c := range p.Channels {
			if c.CsvName == "" {
				t.Errorf("package %q channel %q has no head", name, c.Name)
				continue
			}
			b, err := s.b.GetBundleForChannel(s.ctx, name, c.Name)
			if err != nil {
				t.Errorf("GetBundleForChannel(%q, %q): %v", name, c.Name, err)
				continue
			}
			if b.CsvName != c.CsvName {
				t.Errorf("GetBundleForChannel(%q, %q) = %q, GetPackage says the head is %q", name, c.Name, b.CsvName, c.CsvName)
			}
			if b.Replaces != "" || len(b.Skips) > 0 {
				t.Errorf("GetBundleForChannel(%q, %q) carries replaces/skips; only ListBundles may", name, c.Name)
			}
		}
	}
}

func listedBundlesAreServed(t *testing.T, s *snapshot) {
	for _, r := range s.rows {
		if s.channel(r.PackageName, r.ChannelName) == nil {
			t.Errorf("ListBundles row %s is in (%s, %s), which GetPackage does not list", r.CsvName, r.PackageName, r.ChannelName)
			continue
		}
		got, err := s.b.GetBundle(s.ctx, r.PackageName, r.ChannelName, r.CsvName)
		if err != nil {
			t.Errorf("GetBundle(%s, %s, %s) of a listed bundle: %v", r.PackageName, r.ChannelName, r.CsvName, err)
			continue
		}
		if got.CsvName != r.CsvName || got.PackageName != r.PackageName || got.ChannelName != r.ChannelName ||
			got.BundlePath != r.BundlePath || got.Version != r.Version || got.SkipRange != r.SkipRange {
			t.Errorf("GetBundle(%s, %s, %s) = {%s %s %s %s %s %s}, ListBundles row = {%s %s %s %s %s %s}",
				r.PackageName, r.ChannelName, r.CsvName,
				got.CsvName, got.PackageName, got.ChannelName, got.BundlePath, got.Version, got.SkipRange,
				r.CsvName, r.PackageName, r.ChannelName, r.BundlePath, r.Version, r.SkipRange)
		}
		if got.Replaces != "" || len(got.Skips) > 0 {
			t.Errorf("GetBundle(%s, %s, %s) carries replaces/skips; only ListBundles may", r.PackageName, r.ChannelName, r.CsvName)
		}
		if got.CsvJson != "" && !containsString(got.Object, got.CsvJson) {
			t.Errorf("GetBundle(%s, %s, %s): csvJson is not one of the objects", r.PackageName, r.ChannelName, r.CsvName)
		}
	}
}

func listBundlesOmitsManifestsOfImages(t *testing.T, s *snapshot) {
	for _, r := range s.rows {
		if r.BundlePath != "" && (r.CsvJson != "" || len(r.Object) > 0) {
			t.Errorf("ListBundles row %s (%s, %s) has an image and manifests; opm leaves manifests out", r.CsvName, r.PackageName, r.ChannelName)
		}
	}
}

func headsAreListed(t *testing.T, s *snapshot) {
	for name, p := range s.packages {
		for _, c := range p.Channels {
			if _, ok := s.byKey[[3]string{name, c.Name, c.CsvName}]; !ok {
				t.Errorf("head %s of (%s, %s) is not among the ListBundles rows", c.CsvName, name, c.Name)
			}
		}
	}
}

func replacesEdgesFoundFromBothEnds(t *testing.T, s *snapshot) {
	for _, r := range s.rows {
		if r.Replaces == "" {
			continue
		}
		entries, err := s.b.GetChannelEntriesThatReplace(s.ctx, r.Replaces)
		if err != nil {
			t.Errorf("GetChannelEntriesThatReplace(%s), replaced by %s: %v", r.Replaces, r.CsvName, err)
			continue
		}
		found := false
		for _, e := range entries {
			found = found || e.PackageName == r.PackageName && e.ChannelName == r.ChannelName && e.BundleName == r.CsvName
		}
		if !found {
			t.Errorf("GetChannelEntriesThatReplace(%s) misses (%s, %s, %s)", r.Replaces, r.PackageName, r.ChannelName, r.CsvName)
		}
		got, err := s.b.GetBundleThatReplaces(s.ctx, r.Replaces, r.PackageName, r.ChannelName)
		if err != nil {
			t.Errorf("GetBundleThatReplaces(%s, %s, %s): %v", r.Replaces, r.PackageName, r.ChannelName, err)
			continue
		}
		row := s.byKey[[3]string{r.PackageName, r.ChannelName, got.CsvName}]
		if row == nil || row.Replaces != r.Replaces && !containsString(row.Skips, r.Replaces) {
			t.Errorf("GetBundleThatReplaces(%s, %s, %s) = %s, which neither replaces nor skips it", r.Replaces, r.PackageName, r.ChannelName, got.CsvName)
		}
	}
}

func providersAreFound(t *testing.T, s *snapshot) {
	providers := map[[3]string][][3]string{}
	for _, r := range s.rows {
		for _, g := range r.ProvidedApis {
			k := [3]string{g.Group, g.Version, g.Kind}
			providers[k] = append(providers[k], [3]string{r.PackageName, r.ChannelName, r.CsvName})
		}
	}
	for g, want := range providers {
		entries, err := s.b.GetChannelEntriesThatProvide(s.ctx, g[0], g[1], g[2])
		if err != nil {
			t.Errorf("GetChannelEntriesThatProvide(%v): %v", g, err)
			continue
		}
		have := map[[3]string]bool{}
		for _, e := range entries {
			have[[3]string{e.PackageName, e.ChannelName, e.BundleName}] = true
		}
		for _, w := range want {
			if !have[w] {
				t.Errorf("GetChannelEntriesThatProvide(%v) misses provider %v", g, w)
			}
		}
	}
}

func latestAndDefaultProvidersAreListed(t *testing.T, s *snapshot) {
	gvks := map[[3]string]bool{}
	for _, r := range s.rows {
		for _, g := range r.ProvidedApis {
			gvks[[3]string{g.Group, g.Version, g.Kind}] = true
		}
	}
	for g := range gvks {
		latest, err := s.b.GetLatestChannelEntriesThatProvide(s.ctx, g[0], g[1], g[2])
		if err == nil {
			for _, e := range latest {
				if s.byKey[[3]string{e.PackageName, e.ChannelName, e.BundleName}] == nil {
					t.Errorf("GetLatestChannelEntriesThatProvide(%v) answers (%s, %s, %s), which is not listed", g, e.PackageName, e.ChannelName, e.BundleName)
				}
			}
		}
		def, err := s.b.GetDefaultBundleThatProvides(s.ctx, g[0], g[1], g[2])
		if err != nil {
			continue // a provider outside every default channel is a legitimate miss
		}
		if p := s.packages[def.PackageName]; p == nil || p.DefaultChannelName != def.ChannelName {
			t.Errorf("GetDefaultBundleThatProvides(%v) = (%s, %s), not a default channel", g, def.PackageName, def.ChannelName)
		}
		if !providesGVK(def, g) {
			t.Errorf("GetDefaultBundleThatProvides(%v) = %s, which does not provide it", g, def.CsvName)
		}
	}
}

func providesGVK(b *api.Bundle, g [3]string) bool {
	for _, p := range b.ProvidedApis {
		if p.Group == g[0] && p.Version == g[1] && p.Kind == g[2] {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var errStop = errors.New("client went away")

func listBundlesStopsWhenSendFails(t *testing.T, s *snapshot) {
	calls := 0
	err := s.b.ListBundles(s.ctx, func(*api.Bundle) error { calls++; return errStop })
	if !errors.Is(err, errStop) {
		t.Errorf("ListBundles returned %v when send failed, want the send error", err)
	}
	if calls != 1 {
		t.Errorf("ListBundles called send %d times after it failed once", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	err = s.b.ListBundles(ctx, func(*api.Bundle) error { n++; return nil })
	if err == nil && n == len(s.rows) && n > 1 {
		t.Errorf("ListBundles streamed all %d bundles for a cancelled call", n)
	}
}

func missesAreCodeUnknown(t *testing.T, s *snapshot) {
	conn := replay.Serve(t, s.b, false)
	reg := api.NewRegistryClient(conn)
	ctx := s.ctx
	var anyPkg, anyCh string
	for _, r := range s.rows {
		anyPkg, anyCh = r.PackageName, r.ChannelName
		break
	}
	check := func(what string, err error) {
		if status.Code(err) != codes.Unknown {
			t.Errorf("%s: code %v (%v), opm answers Unknown", what, status.Code(err), err)
		}
	}
	_, err := reg.GetPackage(ctx, &api.GetPackageRequest{Name: "no-such-package"})
	check("GetPackage(no-such-package)", err)
	_, err = reg.GetPackage(ctx, &api.GetPackageRequest{})
	check("GetPackage(\"\")", err)
	_, err = reg.GetBundle(ctx, &api.GetBundleRequest{PkgName: anyPkg, ChannelName: anyCh, CsvName: "no-such-bundle.v0.0.0"})
	check("GetBundle(unknown bundle)", err)
	_, err = reg.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: anyPkg, ChannelName: "no-such-channel"})
	check("GetBundleForChannel(unknown channel)", err)
	_, err = reg.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: "no-such-bundle.v0.0.0", PkgName: anyPkg, ChannelName: anyCh})
	check("GetBundleThatReplaces(unknown)", err)
	_, err = reg.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: "no-such-group.example.com", Version: "v1", Kind: "NoSuchKind"})
	check("GetDefaultBundleThatProvides(unknown)", err)
	stream, err := reg.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: "no-such-group.example.com", Version: "v1", Kind: "NoSuchKind"})
	if err == nil {
		var msg *api.ChannelEntry
		msg, err = stream.Recv()
		if msg != nil {
			t.Errorf("GetChannelEntriesThatProvide(unknown) sent an entry")
		}
	}
	check("GetChannelEntriesThatProvide(unknown)", err)
}
