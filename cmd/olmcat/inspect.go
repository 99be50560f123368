package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/ops"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newInspectCmd) }

const inspectLong = `Show what a catalog holds without serving it.

  olmcat inspect packages CATALOG [-o text|json]
  olmcat inspect package CATALOG --package PACKAGE [-o text|json]
                                   (also: inspect package CATALOG PACKAGE)

'packages' lists every package with its channels and default channel. 'package' lists, per channel
(oldest version first), every bundle's version, CSV name and bundle image (bundlePath), the bundles
it replaces (upgrades from) and the bundles that replace it, each edge marked with how it is made:
replaces, skips or skipRange. Deprecation messages of the package, channels and bundles are shown.

JSON output follows the implicit-versioning design's format:
  {"packages": [{"name", "channels": [...], "defaultChannel", "deprecation"?}]}
  {"name", "defaultChannel", "deprecation"?, "channels": [{"name", "head", "deprecation"?, "bundles": [
     {"version", "csv", "bundlePath", "replaces": [{"version", "csv", "via": [...]}] | null,
      "replacements": [...] | null, "deprecation"?}]}]}

` + editInputHelp + `
The catalog need not be valid: inspect shows whatever loads.

Exit codes: 0 shown, 2 bad usage, unknown package or unreadable input.`

func newInspectCmd() *cobra.Command {
	var format string
	var inFlags inputFlags
	load := func(cmd *cobra.Command, ref string) (*model.Model, error) {
		if format != "table" && format != "json" {
			return nil, usageError{fmt.Errorf("-o must be text or json, not %q", format)}
		}
		in, err := readCatalog(cmd, ref, inFlags)
		if err != nil {
			return nil, err
		}
		defer in.src.Close()
		if _, err := ops.ConvertLegacyDeprecations(in.cat); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: legacy channel deprecations not shown: %s\n", term(err.Error()))
		}
		m, _ := model.FromCatalog(in.cat)
		return m, nil
	}
	cmd := &cobra.Command{
		Use:   "inspect (packages CATALOG | package CATALOG --package PACKAGE)",
		Short: "List a catalog's packages, or a package's channels, bundles and upgrade edges",
		Long:  inspectLong,
	}
	packages := &cobra.Command{
		Use:   "packages CATALOG",
		Short: "List packages with their channels and default channel",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := load(cmd, args[0])
			if err != nil {
				return err
			}
			r := ops.InspectPackages(m)
			if format == "json" {
				return writeJSONDoc(cmd.OutOrStdout(), r)
			}
			return packagesTable(cmd.OutOrStdout(), r, tableWidth(cmd.OutOrStdout()))
		},
	}
	var pkgFlag string
	pkg := &cobra.Command{
		Use:   "package CATALOG (--package PACKAGE | PACKAGE)",
		Short: "Show a package's channels, bundles and upgrade edges",
		Args: func(cmd *cobra.Command, args []string) error {
			// The package is chosen with --package, as on every other command; the positional
			// PACKAGE of earlier releases stays an alias.
			switch {
			case len(args) == 0:
				return cobra.MinimumNArgs(1)(cmd, args)
			case len(args) > 2 || len(args) == 2 && pkgFlag != "":
				return usageError{fmt.Errorf("inspect package takes CATALOG and one package (--package PACKAGE, or PACKAGE after CATALOG), got %s", quotedList(args))}
			case len(args) == 1 && pkgFlag == "":
				return usageError{fmt.Errorf("inspect package needs the package: --package PACKAGE is missing")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name := pkgFlag
			if len(args) == 2 {
				name = args[1]
			}
			m, err := load(cmd, args[0])
			if err != nil {
				return err
			}
			if _, ok := m.Packages[name]; !ok {
				return usageError{unknownPackage(m, name)}
			}
			r, err := ops.InspectPackage(m, name)
			if err != nil {
				return usageError{err}
			}
			if format == "json" {
				return writeJSONDoc(cmd.OutOrStdout(), r)
			}
			return packageTable(cmd.OutOrStdout(), r, tableWidth(cmd.OutOrStdout()))
		},
	}
	pkg.Flags().StringVar(&pkgFlag, "package", "", "the package to show (PACKAGE after CATALOG says the same)")
	for _, c := range []*cobra.Command{packages, pkg} {
		c.Flags().StringVarP(&format, "output", "o", "table", "output format: table or json")
		addInputFlags(c.Flags(), &inFlags)
		addMigrateLevelFlag(c.Flags(), &inFlags.migrateLevel)
		cmd.AddCommand(c)
	}
	return cmd
}

func writeJSONDoc(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// packagesTable lists the packages in a table at most width columns wide.
func packagesTable(w io.Writer, r ops.PackagesReport, width int) error {
	rows := [][]string{{"PACKAGE", "DEFAULT CHANNEL", "CHANNELS", "DEPRECATION"}}
	for _, p := range r.Packages {
		channels := make([]string, len(p.Channels))
		for i, c := range p.Channels {
			channels[i] = shown(c)
		}
		rows = append(rows, []string{shown(p.Name), shown(p.DefaultChannel), strings.Join(channels, ", "), shown(strings.TrimSpace(p.Deprecation))})
	}
	return writeFitted(w, rows, width)
}

// packageTable shows a package, a table at most width columns wide per channel.
func packageTable(w io.Writer, r *ops.PackageReport, width int) error {
	fmt.Fprintf(w, "package %s (default channel %s)\n", shown(r.Name), shown(r.DefaultChannel))
	if r.Deprecation != "" {
		fmt.Fprintf(w, "deprecated: %s\n", shown(strings.TrimSpace(r.Deprecation)))
	}
	for _, ch := range r.Channels {
		fmt.Fprintf(w, "\nchannel %s (head %s)\n", shown(ch.Name), shown(orNone(ch.Head)))
		if ch.Deprecation != "" {
			fmt.Fprintf(w, "deprecated: %s\n", shown(strings.TrimSpace(ch.Deprecation)))
		}
		rows := [][]string{{"VERSION", "CSV", "BUNDLE IMAGE", "UPGRADES FROM", "UPGRADES TO", "DEPRECATION"}}
		for _, b := range ch.Bundles {
			rows = append(rows, []string{shown(b.Version), shown(b.CSV), shown(b.BundlePath), edges(b.Replaces), edges(b.Replacements), shown(strings.TrimSpace(b.Deprecation))})
		}
		if err := writeFitted(w, rows, width); err != nil {
			return err
		}
	}
	return nil
}

func edges(es []ops.EdgeRef) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%s (%s)", shown(e.CSV), term(strings.Join(e.Via, "+")))
	}
	return strings.Join(parts, "\n")
}

// term shows catalog text on a terminal with its control characters escaped (textsafe.Terminal):
// a name cannot clear the screen, rewrite a line or reorder what follows.
func term(s string) string { return textsafe.Terminal(s) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// unknownPackage says that the catalog has no package name: the nearest name when one is within
// two edits, then the first packages, as every list olmcat prints: "a, b and 3 more".
func unknownPackage(m *model.Model, name string) error {
	names := make([]string, 0, len(m.Packages))
	for n := range m.Packages {
		names = append(names, textsafe.Terminal(n))
	}
	sort.Strings(names)
	msg := fmt.Sprintf("no package %q in the catalog", name)
	if near := nearestWord(name, names); near != "" {
		msg += "; did you mean " + near + "?"
	}
	return fmt.Errorf("%s (packages: %s)", msg, briefList(names, 10))
}
