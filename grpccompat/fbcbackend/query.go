package fbcbackend

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// ListPackages returns the package names sorted (opm's order is random).
func (b *Backend) ListPackages(context.Context) ([]string, error) {
	out := make([]string, 0, len(b.ix.Packages))
	for _, p := range b.ix.Packages {
		out = append(out, p.Name)
	}
	return out, nil
}

// GetPackage returns the package with its channels sorted by name, heads and deprecations.
func (b *Backend) GetPackage(_ context.Context, name string) (*api.Package, error) {
	p, ok := b.pkgs[name]
	if !ok {
		return nil, fmt.Errorf("package %q not found", name)
	}
	out := &api.Package{Name: p.Name, DefaultChannelName: p.DefaultChannel, Deprecation: deprecation(p.Deprecation)}
	for _, c := range p.Channels {
		out.Channels = append(out.Channels, &api.Channel{Name: c.Name, CsvName: c.Head, Deprecation: deprecation(c.Deprecation)})
	}
	return out, nil
}

func deprecation(msg *string) *api.Deprecation {
	if msg == nil {
		return nil
	}
	return &api.Deprecation{Message: *msg}
}

func (b *Backend) lookup(pkgName, channelName string) (*pkgIndex, *channelIndex, error) {
	p, ok := b.pkgs[pkgName]
	if !ok {
		return nil, nil, fmt.Errorf("package %q not found", pkgName)
	}
	c, ok := p.byName[channelName]
	if !ok {
		return nil, nil, fmt.Errorf("package %q, channel %q not found", pkgName, channelName)
	}
	return p, c, nil
}

// GetBundle returns the bundle as served from one channel, without replaces and skips.
func (b *Backend) GetBundle(_ context.Context, pkgName, channelName, csvName string) (*api.Bundle, error) {
	p, c, err := b.lookup(pkgName, channelName)
	if err != nil {
		return nil, err
	}
	e, ok := c.byName[csvName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q, bundle %q not found", pkgName, channelName, csvName)
	}
	return b.bundle(p, c, e, true)
}

// GetBundleForChannel returns the channel head, complete (unlike the SQL backend).
func (b *Backend) GetBundleForChannel(_ context.Context, pkgName, channelName string) (*api.Bundle, error) {
	p, c, err := b.lookup(pkgName, channelName)
	if err != nil {
		return nil, err
	}
	return b.bundle(p, c, c.byName[c.Head], true)
}

// GetBundleThatReplaces returns the first bundle of the channel (by name; opm's order is random)
// whose replaces is csvName or whose skips hold it.
func (b *Backend) GetBundleThatReplaces(_ context.Context, csvName, pkgName, channelName string) (*api.Bundle, error) {
	p, ok := b.pkgs[pkgName]
	if !ok {
		return nil, fmt.Errorf("package %s not found", pkgName) // opm does not quote here
	}
	c, ok := p.byName[channelName]
	if !ok {
		return nil, fmt.Errorf("package %q, channel %q not found", pkgName, channelName)
	}
	for _, e := range c.Entries {
		if e.Replaces == csvName || contains(e.Skips, csvName) {
			return b.bundle(p, c, e, true)
		}
	}
	return nil, fmt.Errorf("no entry found for package %q, channel %q", pkgName, channelName)
}

// GetDefaultBundleThatProvides returns the head of the default channel of the first package (by
// name) whose default channel head provides the API.
func (b *Backend) GetDefaultBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error) {
	latest, err := b.GetLatestChannelEntriesThatProvide(ctx, group, version, kind)
	if err != nil {
		return nil, err
	}
	for _, e := range latest { // already in package-name order
		p := b.pkgs[e.PackageName]
		if e.ChannelName == p.DefaultChannel {
			return b.GetBundle(ctx, e.PackageName, e.ChannelName, e.BundleName)
		}
	}
	return nil, fmt.Errorf("no entry found that provides group:%q version:%q kind:%q", group, version, kind)
}

// bundle assembles the answer for one channel entry: the stored channel-independent fields, the
// channel's name and skipRange, the deprecation, the manifests, and (ListBundles only) the
// entry's replaces and skips.
func (b *Backend) bundle(p *pkgIndex, c *channelIndex, e *entryIndex, trimmed bool) (*api.Bundle, error) {
	bi := b.ix.Bundles[e.Bundle]
	out := &api.Bundle{}
	if err := proto.Unmarshal(bi.Light, out); err != nil {
		return nil, fmt.Errorf("bundle %q: corrupt cache index: %v", e.Name, err)
	}
	out.ChannelName = c.Name
	out.SkipRange = e.SkipRange
	out.Deprecation = deprecation(bi.Deprecation)
	if !trimmed {
		out.Replaces, out.Skips = e.Replaces, e.Skips
	}
	if !trimmed && out.BundlePath != "" {
		return out, nil // ListBundles leaves manifests out of bundles that have an image
	}
	raw, err := b.store.read(bi.Body)
	if err != nil {
		return nil, fmt.Errorf("bundle %q: %w", e.Name, err)
	}
	body, err := decodeBody(raw)
	if err != nil {
		return nil, fmt.Errorf("bundle %q: cache file %s: %w", e.Name, b.store.path, err)
	}
	switch {
	case body.CSVMeta != nil:
		csv, err := synthesizeCSV(e.Name, body, csvmeta.Package{Description: p.Description, Icon: p.Icon})
		if err != nil {
			return nil, fmt.Errorf("bundle %q: synthesize CSV from olm.csv.metadata: %w", e.Name, err)
		}
		out.CsvJson, out.Object = csv, []string{csv}
	default:
		out.Object = body.Objects
		if body.CSVIndex >= 0 {
			out.CsvJson = body.Objects[body.CSVIndex]
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
