package convert

import (
	"fmt"

	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite"
)

// packageToSQLite builds every row of one package. The package must have passed checkWritable.
func packageToSQLite(pkg *model.Package, r *SQLiteReport) (*sqlite.PackageOut, error) {
	rows := &sqlite.PackageOut{Name: pkg.Name, DefaultChannel: pkg.DefaultChannel}
	if rows.DefaultChannel == "" && len(pkg.Channels) == 1 {
		for name := range pkg.Channels {
			rows.DefaultChannel = name
		}
		r.change(Finding{Kind: KindDefaultChannelSet, Package: pkg.Name,
			Detail: fmt.Sprintf("no defaultChannel; package.default_channel is the only channel, %q", rows.DefaultChannel)})
	}

	var defaultHead string
	for _, ch := range pkg.SortedChannels() {
		head, err := ch.Head()
		if err != nil {
			return nil, fmt.Errorf("channel %q: %w", ch.Name, err)
		}
		entries, err := sqliteChannelEntries(ch, head.Name, r)
		if err != nil {
			return nil, fmt.Errorf("channel %q: %w", ch.Name, err)
		}
		rows.Channels = append(rows.Channels, sqlite.ChannelOut{Name: ch.Name, Head: head.Name, Entries: entries})
		if ch.Name == rows.DefaultChannel {
			defaultHead = head.Name
		}
		if len(ch.Properties) > 0 {
			r.loss(Finding{Kind: KindChannelProperties, Package: pkg.Name, Channel: ch.Name,
				Detail: fmt.Sprintf("%d channel properties; index.db has no place for channel properties", len(ch.Properties))})
		}
	}

	for _, b := range pkg.SortedBundles() {
		if len(channelsWithEntry(pkg, b.Name)) == 0 {
			r.loss(Finding{Kind: KindBundleWithoutChannel, Package: pkg.Name, Bundle: b.Name,
				Detail: "the bundle is in no channel; opm reads bundles only through channel entries, so it is not written"})
			continue
		}
		cb, err := bundleToSQLite(pkg, b, r)
		if err != nil {
			return nil, err
		}
		if b.Name == defaultHead {
			checkIconRoundTrip(pkg, cb.csvIcon, r)
			if !cb.hasCSV {
				r.change(Finding{Kind: KindDefaultHeadWithoutCSV, Package: pkg.Name, Bundle: b.Name,
					Detail: "the default channel's head has no CSV (neither a CSV object nor olm.csv.metadata): GetBundleForChannel answers an empty csvJson and opm migrate of the index.db fails reading the package icon"})
			}
		}
		rows.Bundles = append(rows.Bundles, cb.row)
	}

	if pkg.Description != "" {
		r.loss(Finding{Kind: KindPackageDescription, Package: pkg.Name,
			Detail: "index.db has no column for the package description"})
	}
	if len(pkg.Properties) > 0 {
		r.loss(Finding{Kind: KindPackageProperties, Package: pkg.Name,
			Detail: fmt.Sprintf("%d package properties; index.db has no place for package properties", len(pkg.Properties))})
	}
	return rows, nil
}
