package report

import (
	"sort"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// chart is one channel the Markdown draws: its union graph in the two catalogs and the severity of
// the worst finding about it or one of its bundles.
type chart struct {
	pkg      string
	channel  picture.Channel
	severity diff.Severity
}

// charts lists the channels whose upgrade graph changed (removed and added ones too) or that a
// graph or validation finding names, worst first, then by package and channel.
func charts(r *diff.Report, oldSide, newSide *diff.Side) []chart {
	if oldSide == nil || newSide == nil {
		return nil
	}
	names, groups := diff.ByPackage(r.Findings)
	pkgs := map[string]bool{}
	for _, name := range names {
		pkgs[name] = name != ""
	}
	om, nm := modelOf(oldSide.Catalog, pkgs), modelOf(newSide.Catalog, pkgs)
	var out []chart
	for _, name := range names {
		if name == "" {
			continue
		}
		g, err := picture.BuildDiff(om, nm, r, name, "")
		if err != nil {
			continue // in neither catalog's model: nothing to draw
		}
		worst, named, whole := map[string]diff.Severity{}, map[string]bool{}, diff.Severity("")
		for _, f := range groups[name] {
			switch {
			case f.Channel != "":
				if f.Severity.Rank() > worst[f.Channel].Rank() {
					worst[f.Channel] = f.Severity
				}
				named[f.Channel] = named[f.Channel] || f.Category != diff.CategoryCatalog
			case f.Kind == diff.PackageAdded || f.Kind == diff.PackageRemoved:
				whole = f.Severity
			}
		}
		for _, ch := range g.Channels {
			if !named[ch.Name] && !changed(ch) {
				continue
			}
			sev := worst[ch.Name]
			if ch.Status != picture.Unchanged && whole.Rank() > sev.Rank() {
				sev = whole
			}
			for _, n := range ch.Nodes {
				if n.Worst().Rank() > sev.Rank() {
					sev = n.Worst()
				}
			}
			if sev == "" {
				sev = diff.Info
			}
			out = append(out, chart{pkg: name, channel: ch, severity: sev})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.severity.Rank() != b.severity.Rank() {
			return a.severity.Rank() > b.severity.Rank()
		}
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		return a.channel.Name < b.channel.Name
	})
	return out
}

// changed says whether a channel's graph differs between the catalogs.
func changed(ch picture.Channel) bool {
	if ch.Status != picture.Unchanged {
		return true
	}
	for _, n := range ch.Nodes {
		if n.Status != picture.Unchanged || n.Stranded || n.WasHead || n.SkipRangeChanged {
			return true
		}
	}
	for _, e := range ch.Edges {
		if e.Status != picture.Unchanged {
			return true
		}
	}
	return false
}

// modelOf builds the model of the named packages only.
func modelOf(cat *fbc.Catalog, pkgs map[string]bool) *model.Model {
	sub := &fbc.Catalog{}
	if cat != nil {
		for _, p := range cat.Packages {
			if pkgs[p.Name] {
				sub.Packages = append(sub.Packages, p)
			}
		}
		for _, c := range cat.Channels {
			if pkgs[c.Package] {
				sub.Channels = append(sub.Channels, c)
			}
		}
		for _, b := range cat.Bundles {
			if pkgs[b.Package] {
				sub.Bundles = append(sub.Bundles, b)
			}
		}
		for _, d := range cat.Deprecations {
			if pkgs[d.Package] {
				sub.Deprecations = append(sub.Deprecations, d)
			}
		}
	}
	m, _ := model.FromCatalog(sub)
	return m
}
