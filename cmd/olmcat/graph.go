package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newGraphCmd) }

const graphLong = `Draw the upgrade graph of a package as Mermaid, Graphviz DOT, SVG or an HTML page.

  olmcat graph CATALOG [--package P] [--channel C] [-o mermaid|dot|svg|html] [--diff OLD]

CATALOG and OLD are catalog references (below). --package may be left out when the catalog (or,
with --diff, both catalogs together) has one package. Each channel is drawn apart, its bundles in
semver order (0.1.2 before 0.1.10; names without a version last), newest at the top; an arrow
points from a bundle to a bundle its users can upgrade to (solid: replaces; dotted in Mermaid and
DOT, dashed in SVG: skips). A skipRange is no arrow per covered bundle: Mermaid and DOT write it on
the bundle that declares it, SVG draws it as a band over the versions it covers, joined to that
bundle, with the range beside it. The head is drawn bold, names that are replaced or skipped but
are not entries of the channel dashed; the default channel and deprecated packages, channels and
bundles are marked, and a legend says so. Mermaid is drawn bottom to top (flowchart BT) so that,
as in the SVG, the newest bundle is at the top and arrows point to the upgrade target.

-o svg is one standalone SVG document (replaces edges on the left of the bundles, skips on the
right, then the skipRange bands); -o html is a self-contained page with the same pictures (no
scripts, no external resources). Long channels are cut, saying how many bundles are not drawn.

With --diff OLD the graph is the union of OLD and CATALOG: added bundles and edges are green,
removed ones red (bundles dashed), and bundles whose users can no longer reach the head (stranded)
orange; every bundle a finding of the comparison names is ringed in the colour of its worst finding
(red breaking, amber warning, a blue dot for info), the findings in its tooltip. The head is the head
of CATALOG: a head OLD had and CATALOG removed is drawn as removed (and "old head").

Exit codes: 0 drawn, 2 bad usage, unknown package or channel, or an input that cannot be used.

` + referenceHelp

func newGraphCmd() *cobra.Command {
	var pkg, channel, output, oldRef string
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "graph CATALOG [--package P] [--channel C] [-o mermaid|dot|svg|html] [--diff OLD]",
		Short: "Draw a package's upgrade graph (Mermaid, DOT, SVG or HTML), optionally compared with another revision",
		Long:  graphLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch output {
			case picture.FormatMermaid, picture.FormatDOT, picture.FormatSVG, picture.FormatHTML:
			default:
				return usageError{fmt.Errorf("-o must be mermaid, dot, svg or html, not %q", output)}
			}
			g, err := drawGraph(cmd.Context(), args[0], oldRef, pkg, channel, input.Options{Source: in.options(cmd)})
			if err != nil {
				return err
			}
			return picture.Write(cmd.OutOrStdout(), g, output)
		},
	}
	cmd.Flags().StringVar(&pkg, "package", "", "package to draw (needed when the catalog has several)")
	cmd.Flags().StringVar(&channel, "channel", "", "draw only this channel")
	cmd.Flags().StringVarP(&output, "output", "o", picture.FormatMermaid, "output format: mermaid, dot, svg or html")
	cmd.Flags().StringVar(&oldRef, "diff", "", "compare with this older revision of the catalog")
	addInputFlags(cmd.Flags(), &in)
	addMigrateLevelFlag(cmd.Flags(), &in.migrateLevel)
	return cmd
}

// drawGraph draws the catalog, or with oldRef its union with the older revision.
func drawGraph(ctx context.Context, catalog, oldRef, pkg, channel string, opts input.Options) (*picture.Graph, error) {
	if oldRef == "" {
		side, err := input.Open(ctx, catalog, opts)
		if err != nil {
			return nil, err
		}
		if err := checkLoaded(side); err != nil {
			return nil, err
		}
		m := sideModel(side)
		if pkg, err = onlyPackage(pkg, m); err != nil {
			return nil, err
		}
		g, err := picture.Build(m, pkg, channel)
		if err != nil {
			return nil, usageError{err}
		}
		return g, nil
	}
	oldSide, newSide, err := input.OpenPair(ctx, oldRef, catalog, opts)
	if err != nil {
		return nil, err
	}
	for _, side := range []*diff.Side{oldSide, newSide} {
		if err := checkLoaded(side); err != nil {
			return nil, err
		}
	}
	oldModel, newModel := sideModel(oldSide), sideModel(newSide)
	if pkg, err = onlyPackage(pkg, oldModel, newModel); err != nil {
		return nil, err
	}
	g, err := picture.BuildDiff(oldModel, newModel, diff.Compare(oldSide, newSide), pkg, channel)
	if err != nil {
		return nil, usageError{err}
	}
	return g, nil
}

// checkLoaded refuses a side whose catalog did not load cleanly: a graph drawn without the blobs
// that failed to load would look whole and be wrong.
func checkLoaded(side *diff.Side) error {
	var failed model.Issues
	for _, p := range side.Problems {
		if strings.HasPrefix(p.Rule, "load-") { // the rules of model.LoadIssues
			failed = append(failed, p)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return doesNotLoad(side.Source, failed)
}

// onlyPackage is the package asked for, or the one package of the models when none was asked for.
func onlyPackage(pkg string, models ...*model.Model) (string, error) {
	if pkg != "" {
		return pkg, nil
	}
	names := picture.Packages(models...)
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", usageError{fmt.Errorf("the catalog has no package to draw")}
	}
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = textsafe.Terminal(n) // one line, whatever the names hold
	}
	return "", usageError{fmt.Errorf("the catalog has %d packages, choose one with --package: %s", len(names), strings.Join(shown, ", "))}
}

// sideModel builds the model of whatever part of a side loaded; drawing needs no validation.
func sideModel(s *diff.Side) *model.Model {
	cat := s.Catalog
	if cat == nil {
		cat = &fbc.Catalog{}
	}
	m, _ := model.FromCatalog(cat)
	return m
}
