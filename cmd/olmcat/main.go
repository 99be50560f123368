// Command olmcat converts, validates, diffs and serves OLM catalogs (File-Based Catalogs and legacy
// SQLite index databases). Each subcommand lives in its own file and registers itself; the work is
// done by the library packages.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

var subcommands []func() *cobra.Command

// register adds a subcommand constructor; called from init() in each command's file.
func register(newCmd func() *cobra.Command) { subcommands = append(subcommands, newCmd) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "olmcat",
		Short:         "Convert, validate, diff and serve OLM catalogs (FBC and SQLite index.db)",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nrun '%s --help' for usage", err, c.CommandPath())}
	})
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd())
	}
	addVerbNounSpellings(root)
	return root
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var exit exitError
	if errors.As(err, &exit) && exit.err == nil {
		return exit.code
	}
	fmt.Fprintf(stderr, "olmcat: %v\n", err)
	return exitCode(err)
}
