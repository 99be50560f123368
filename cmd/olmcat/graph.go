package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/picture"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

func init() { register(newGraphCmd) }

const graphLong = `Draw the upgrade graph of a package as Mermaid or Graphviz DOT.

  olmcat graph CATALOG --package P [--channel C] -o mermaid|dot [--diff OLD]

CATALOG and OLD are catalog references (below). Each channel is a
subgraph; an edge points from a bundle to a bundle its users can upgrade to (solid: replaces,
dotted: skips and skipRange); the head is drawn bold, names that are replaced or skipped but are not
entries of the channel dashed.

With --diff OLD the graph is the union of OLD and CATALOG: added bundles and edges are green, removed
ones red and dashed, and bundles whose users can no longer reach the head (stranded) orange.

Exit codes: 0 drawn, 2 bad usage, unknown package or channel, or an input that cannot be used.

` + referenceHelp

func newGraphCmd() *cobra.Command {
	var pkg, channel, output, oldRef string
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "graph CATALOG --package P [--channel C] [-o mermaid|dot] [--diff OLD]",
		Short: "Draw a package's upgrade graph (Mermaid or DOT), optionally compared with another revision",
		Long:  graphLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pkg == "" {
				return usageError{fmt.Errorf("--package is required")}
			}
			if output != picture.FormatMermaid && output != picture.FormatDOT {
				return usageError{fmt.Errorf("-o must be mermaid or dot, not %q", output)}
			}
			g, err := drawGraph(cmd.Context(), args[0], oldRef, pkg, channel, input.Options{Source: in.options(cmd)})
			if err != nil {
				return err
			}
			return picture.Write(cmd.OutOrStdout(), g, output)
		},
	}
	cmd.Flags().StringVar(&pkg, "package", "", "package to draw (required)")
	cmd.Flags().StringVar(&channel, "channel", "", "draw only this channel")
	cmd.Flags().StringVarP(&output, "output", "o", picture.FormatMermaid, "output format: mermaid or dot")
	cmd.Flags().StringVar(&oldRef, "diff", "", "compare with this older revision of the catalog")
	addInputFlags(cmd.Flags(), &in)
	return cmd
}

// drawGraph draws the catalog, or with oldRef its union with the older revision.
func drawGraph(ctx context.Context, catalog, oldRef, pkg, channel string, opts input.Options) (*picture.Graph, error) {
	if oldRef == "" {
		side, err := input.Open(ctx, catalog, opts)
		if err != nil {
			return nil, err
		}
		g, err := picture.Build(sideModel(side), pkg, channel)
		if err != nil {
			return nil, usageError{err}
		}
		return g, nil
	}
	oldSide, newSide, err := input.OpenPair(ctx, oldRef, catalog, opts)
	if err != nil {
		return nil, err
	}
	g, err := picture.BuildDiff(sideModel(oldSide), sideModel(newSide), diff.Compare(oldSide, newSide), pkg, channel)
	if err != nil {
		return nil, usageError{err}
	}
	return g, nil
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
