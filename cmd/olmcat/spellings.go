package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// The design documents and opm users spell some operations as a verb plus a noun: `render bundle`,
// `validate bundle`, `graph rebuild`. Those spellings reach the same commands as `bundle render`,
// `bundle validate` and `graph-rebuild`.
func addVerbNounSpellings(root *cobra.Command) {
	attach := func(parent string, child *cobra.Command, use string) {
		for _, c := range root.Commands() {
			if c.Name() == parent {
				child.Use = use
				c.AddCommand(child)
				return
			}
		}
	}
	render := newBundleRenderCmd()
	attach("render", render, "bundle "+strings.TrimPrefix(render.Use, "render "))
	validate := newBundleValidateCmd()
	attach("validate", validate, "bundle "+strings.TrimPrefix(validate.Use, "validate "))
	rebuild := newGraphRebuildCmd()
	attach("graph", rebuild, "rebuild "+strings.TrimPrefix(rebuild.Use, "graph-rebuild "))
}
