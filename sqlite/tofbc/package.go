package tofbc

import (
	"fmt"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// buildPackage writes the olm.package blob: name, default channel, and the icon of the default
// channel head's CSV (opm never sets a description from an index).
func (pc *packageConverter) buildPackage() (*fbc.Package, error) {
	def := pc.defaultChannel()
	pkg := &fbc.Package{Schema: fbc.SchemaPackage, Name: pc.data.Name, DefaultChannel: def}
	icon, err := pc.icon(def)
	if err != nil {
		return nil, err
	}
	if icon != nil {
		pkg.Icon = icon
	}
	return pkg, nil
}

// defaultChannel returns package.default_channel when it names a written channel, and otherwise
// chooses one (opm dereferences a nil default channel and panics).
func (pc *packageConverter) defaultChannel() string {
	d := pc.data.DefaultChannel
	if d.Valid && pc.channels[d.String] != nil {
		return d.String
	}
	var opm string
	switch {
	case !pc.data.InPackageTable:
		opm = "fails: the package has no package row"
	case !d.Valid || d.String == "":
		opm = "panics (nil pointer dereference in populatePackageIcons): package.default_channel is NULL"
	case pc.hasChannelRow(d.String):
		opm = fmt.Sprintf("fails: default channel %q has no bundle that can be written", d.String)
	default:
		opm = fmt.Sprintf("panics (nil pointer dereference in populatePackageIcons): default channel %q has no channel row", d.String)
	}
	chosen, why := pc.chooseDefaultChannel()
	pc.depart(Departure{Code: DefaultChannelChosen, Channel: chosen, Opm: opm,
		Olmcat: fmt.Sprintf("uses %q as the default channel (%s)", chosen, why)})
	return chosen
}

func (pc *packageConverter) hasChannelRow(name string) bool {
	for _, c := range pc.data.Channels {
		if c.Name == name {
			return true
		}
	}
	return false
}

// chooseDefaultChannel picks the only channel, or the one whose head has the highest version (the
// loader's rule picks the default of the newest bundle), ties broken by name.
func (pc *packageConverter) chooseDefaultChannel() (string, string) {
	names := sortedNames(pc.channels)
	if len(names) == 1 {
		return names[0], "the only channel"
	}
	best, bestVersion := "", (*semverVersion)(nil)
	for _, name := range names {
		v := pc.versionOf(pc.channelHead(name))
		if best == "" || (v != nil && (bestVersion == nil || v.GT(*bestVersion))) {
			best, bestVersion = name, v
		}
	}
	return best, "the channel whose head has the highest version"
}

// channelHead is the head as the channel table records it, or the graph's head for a channel
// without a row.
func (pc *packageConverter) channelHead(channel string) string {
	g := pc.channels[channel]
	if g == nil {
		return ""
	}
	if g.row != nil && g.row.Head.Valid {
		return g.row.Head.String
	}
	return checkGraph(g.entries, "", pc.versionOf).head
}

// icon reads the first icon of the default channel head's csv column, as opm's populatePackageIcons
// does. Where opm fails (no CSV to read), the package gets no icon and a departure.
func (pc *packageConverter) icon(channel string) (*fbc.Icon, error) {
	head := pc.channelHead(channel)
	var csv []byte
	if row := pc.data.Bundles[head]; row != nil && row.HasCSV {
		var err error
		if csv, err = pc.db.BundleCSV(pc.ctx, head); err != nil {
			return nil, err
		}
	}
	if len(csv) == 0 {
		pc.depart(Departure{Code: IconUnavailable, Channel: channel, Bundle: head,
			Opm:    "fails: populate package icons: unmarshal CSV json: unexpected end of JSON input (the default channel head has no csv)",
			Olmcat: "writes the package without an icon"})
		return nil, nil
	}
	icon, err := csvmeta.PackageIcon(csv)
	if err != nil {
		pc.depart(Departure{Code: IconUnavailable, Channel: channel, Bundle: head,
			Opm:    "fails: populate package icons: " + err.Error(),
			Olmcat: "writes the package without an icon"})
		return nil, nil
	}
	return icon, nil
}
