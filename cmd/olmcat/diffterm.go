package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/diff/report"
)

// minTableWidth keeps tables legible on very narrow terminals, at the cost of wider lines.
const minTableWidth = 50

// diffReportOptions says how `olmcat diff` renders its report: the width and colour of tables
// (from --color, NO_COLOR, $COLUMNS and the terminal), and the command line that reproduces it.
func diffReportOptions(cmd *cobra.Command, args []string, format, color string) (report.Options, error) {
	opts := report.Options{Format: format, Command: diffCommandLine(cmd, args)}
	out := cmd.OutOrStdout()
	tty := isTerminal(out)
	switch color {
	case "always":
		opts.Color = true
	case "never":
	case "auto":
		opts.Color = tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	default:
		return opts, usageError{fmt.Errorf("--color must be auto, always or never, not %q", color)}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		opts.Width = n
	} else if tty {
		opts.Width = terminalWidth(fileOf(out))
	}
	if opts.Width != 0 {
		opts.Width = max(opts.Width, minTableWidth)
	}
	return opts, nil
}

// diffCommandLine writes the command as run, for a shell: --git first, then the catalogs, then
// the other flags the user set (what --color and the terminal decide does not change the diff).
func diffCommandLine(cmd *cobra.Command, args []string) string {
	words := []string{"olmcat", "diff"}
	if f := cmd.Flags().Lookup("git"); f != nil && f.Changed {
		words = append(words, "--git", f.Value.String())
	}
	words = append(words, args...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch {
		case f.Name == "git" || f.Name == "color":
		case isSlice(f):
			for _, v := range f.Value.(pflag.SliceValue).GetSlice() {
				words = append(words, "--"+f.Name, v)
			}
		case f.Value.Type() == "bool":
			if f.Value.String() == "true" {
				words = append(words, "--"+f.Name)
			} else {
				words = append(words, "--"+f.Name+"=false")
			}
		case f.Shorthand != "":
			words = append(words, "-"+f.Shorthand, f.Value.String())
		default:
			words = append(words, "--"+f.Name, f.Value.String())
		}
	})
	return report.CommandLine(words...)
}

func isSlice(f *pflag.Flag) bool {
	_, ok := f.Value.(pflag.SliceValue)
	return ok
}
