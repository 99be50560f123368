package main

import (
	"errors"
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
	root.AddCommand(newAlphaCmd())
}

// newAlphaCmd is opm's spelling of the template commands, `opm alpha render-template` and
// `opm alpha convert-template`: a script moves from opm to olmcat by its first word only.
func newAlphaCmd() *cobra.Command {
	alpha := &cobra.Command{
		Use:   "alpha (render-template | convert-template)",
		Short: "opm's spellings: 'alpha render-template' and 'alpha convert-template' are render-template and convert-template",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{errors.New("olmcat alpha has opm's render-template and convert-template (the same as olmcat render-template and olmcat convert-template); name one")}
		},
	}
	alpha.AddCommand(newRenderTemplateCmd(), newConvertTemplateCmd())
	return alpha
}
