package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/diff/report"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newDiffCmd) }

const diffLong = `Compare two catalogs and answer the reviewer's question: after this change, which installed
users can still upgrade to what?

  olmcat diff OLD NEW              each side a catalog reference (below)
  olmcat diff --git REV PATH       PATH (in a git work tree) at revision REV against the work tree,
                                   e.g. olmcat diff --git origin/main catalogs/; the same as
                                   olmcat diff git:REV:PATH PATH, except that a PATH absent at REV
                                   is an empty catalog (everything is new)

A catalog template holds one package: compared with a catalog that is not a template (the published
index), only the template's packages are compared, and stderr names the packages left out.

Catalog changes (packages, default channels, channels, entries and their replaces/skips/skipRange,
bundles with their image, version, properties, related images, provided and required APIs,
dependencies, manifests and CSV metadata, deprecations, other blobs) and upgrade-graph consequences
(head changes, bundles stranded from the head, new and longer paths, removed steps, cycles and second
heads) are findings, each with a severity (breaking, warning, info) and the rule that decided it.
Problems of either input (load errors and every problem olmcat validate reports) are findings too,
matched by rule and place (package, channel, bundle): introduced, persisting (an error both have),
fixed, or changed (a warning both have, in other words); the diff runs on what loads.
Upgrades are judged for both generations of OLM (--olm v0|v1|both, default both), and every upgrade
finding says which it holds for (-o json: "olm": ["v0"], ["v1"] or ["v0","v1"]). OLM v0
(Subscriptions) is read as its resolver reads it, the same way olmcat validate does: only entries of
the head's replaces chain that no entry skips are upgraded to (fbc/model/UPGRADES.md). OLM v1 (ClusterExtensions) is asked as
olmcat resolve asks it: the highest version among the installed bundle's successors (replaces,
skips, skipRange, in any channel), never the head; the v1-install-* and v1-upgrade-* findings say
every change to what it installs (no channel, then each channel) and to where it upgrades the users
of each bundle, and a user stranded under one generation but not the other is said so.

Output (-o): text (default: tables; table is another name for it), json (schema olmcat.diff/v1, see
diff/SCHEMA.md), markdown (for a pull request comment: the verdict, every breaking finding, then the warnings, the info findings, the
changed packages and the pictures of the worst channels, within --max-bytes (default 65,000: GitHub
refuses comments over 65,536 characters); what does not fit is left out mildest first and counted,
with the commands that show all of it), html (one self-contained page, worst package first, info collapsed, an SVG upgrade graph of
each changed channel). Pictures keep version order, draw a skipRange as a range on the bundle that
declares it and mark every bundle a finding names.
--stat prints one line per changed package instead.

Exit codes: 0 no finding at the --fail-on level (or no --fail-on: like git diff, the report is the
result), 1 findings at that level (and one line on stderr saying how many), 2 bad usage or an input
that cannot be used (either side: not found, damaged, empty, ...). --fail-on any fails on any
difference, as diff(1) and git diff --exit-code do.

Tables group what belongs together (a new release's bundle, entries and head change are one row;
the same change to several bundles is one row listing them); -o json keeps every finding.
--min-severity hides lesser findings from the table and says how many it hid.

` + referenceHelp

func newDiffCmd() *cobra.Command {
	var gitRev, output, failOn, color, minSeverity, olm string
	var stat bool
	var maxBytes int
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | diff --git REV PATH",
		Short: "Compare two catalogs: catalog changes and what they do to upgrades",
		Long:  diffLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if gitRev != "" && len(args) != 1 {
				return usageError{fmt.Errorf("diff --git REV takes one PATH, got %s", plural.Of(len(args), "argument"))}
			}
			if gitRev == "" && len(args) != 2 {
				return usageError{fmt.Errorf("diff takes OLD and NEW (or --git REV PATH), got %s", plural.Of(len(args), "argument"))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			threshold, err := parseFailOn(failOn)
			if err != nil {
				return err
			}
			generation, err := model.ParseGenerations(olm)
			if err != nil {
				return usageError{fmt.Errorf("--olm: %w", err)}
			}
			shownFrom, err := parseMinSeverity(minSeverity)
			if err != nil {
				return err
			}
			if minSeverity != "" && (output != report.FormatTable || stat) {
				return usageError{fmt.Errorf("--min-severity shortens the table (-o text); -o %s and --stat always count every finding", output)}
			}
			if cmd.Flags().Changed("max-bytes") && (output != report.FormatMarkdown || stat) {
				return usageError{fmt.Errorf("--max-bytes holds a Markdown comment to a size (-o markdown); -o %s is never cut", output)}
			}
			if maxBytes < 0 || maxBytes > 0 && maxBytes < report.MinMaxBytes {
				return usageError{fmt.Errorf("--max-bytes must be 0 (no limit) or at least %d, not %d", report.MinMaxBytes, maxBytes)}
			}
			if output != report.FormatTable && output != report.FormatJSON && output != report.FormatMarkdown && output != report.FormatHTML {
				return usageError{fmt.Errorf("-o must be table, json, markdown or html, not %q", output)}
			}
			opts, err := diffReportOptions(cmd, args, output, color)
			if err != nil {
				return err
			}
			p := startProgress(cmd)
			p.Phase("reading")
			oldSide, newSide, err := openDiffSides(cmd, gitRev, args, input.Options{Source: in.options(cmd)})
			if err != nil {
				return err
			}
			p.Phase("comparing")
			r := diff.CompareWith(oldSide, newSide, diff.Options{OLM: generation})
			opts.Old, opts.New, opts.MinSeverity = oldSide, newSide, shownFrom
			// The report is drawn as it is written: the line says so while it is, unless it would
			// cut into the report on the same terminal.
			if isTerminal(cmd.OutOrStdout()) {
				p.Close()
			}
			p.Phase("writing the report")
			opts.MaxBytes = maxBytes
			if maxBytes == 0 {
				opts.MaxBytes = -1 // no limit
			}
			if stat {
				err = report.StatOptions(cmd.OutOrStdout(), r, opts.Width)
			} else if output == report.FormatHTML {
				err = report.HTML(cmd.OutOrStdout(), r, sideModel(oldSide), sideModel(newSide))
			} else {
				err = report.Render(cmd.OutOrStdout(), r, opts)
			}
			p.Close()
			if err != nil {
				return err
			}
			return diffExit(cmd, r, threshold, failOn)
		},
	}
	cmd.Flags().StringVar(&gitRev, "git", "", "compare PATH at this git revision with the work tree")
	cmd.Flags().StringVarP(&output, "output", "o", report.FormatTable, "output format: table, json, markdown or html")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when there are findings of this severity or worse: breaking, warning or any")
	cmd.Flags().StringVar(&olm, "olm", model.BothOLM.String(), "the OLM generations whose upgrades are judged: v0 (Subscriptions), v1 (ClusterExtensions) or both")
	cmd.Flags().BoolVar(&stat, "stat", false, "one line per changed package")
	cmd.Flags().StringVar(&minSeverity, "min-severity", "", "table: show only findings of this severity or worse (breaking, warning or info); the verdict line counts the others")
	cmd.Flags().IntVar(&maxBytes, "max-bytes", report.DefaultMaxBytes, "markdown: hold the comment to this many bytes (GitHub refuses more than 65,536 characters), leaving out the mildest findings first and counting them; 0: no limit")
	cmd.Flags().StringVar(&color, "color", "auto", "colour table severities: auto (on a terminal, unless NO_COLOR is set), always or never")
	addInputFlags(cmd.Flags(), &in)
	addMigrateLevelFlag(cmd.Flags(), &in.migrateLevel)
	return cmd
}

// diffExit is the outcome of a diff whose report is written: exit 1 (and why, on stderr) when
// --fail-on finds findings at its level.
func diffExit(cmd *cobra.Command, r *diff.Report, threshold diff.Severity, failOn string) error {
	if threshold != "" && r.Summary.AtLeast(threshold) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: %s (--fail-on %s)\n", failingCounts(r.Summary, threshold), failOn)
		return exitError{code: exitFindings}
	}
	return nil
}

func parseFailOn(s string) (diff.Severity, error) {
	switch s {
	case "":
		return "", nil
	case "breaking":
		return diff.Breaking, nil
	case "warning":
		return diff.Warning, nil
	case "any":
		return diff.Info, nil
	}
	return "", usageError{fmt.Errorf("--fail-on must be breaking, warning or any, not %q", s)}
}

func parseMinSeverity(s string) (diff.Severity, error) {
	switch s {
	case "", "info":
		return "", nil
	case "breaking", "warning":
		return diff.Severity(s), nil
	}
	return "", usageError{fmt.Errorf("--min-severity must be breaking, warning or info, not %q", s)}
}

// failingCounts says which findings made --fail-on fail: "3 breaking findings", "1 breaking and 2
// warning findings".
func failingCounts(c diff.Counts, threshold diff.Severity) string {
	var parts []string
	for _, s := range []struct {
		n    int
		name diff.Severity
	}{{c.Breaking, diff.Breaking}, {c.Warning, diff.Warning}, {c.Info, diff.Info}} {
		if s.n > 0 && s.name.Rank() >= threshold.Rank() {
			parts = append(parts, fmt.Sprintf("%d %s", s.n, s.name))
		}
	}
	noun := "finding"
	if c.AtLeast(threshold) != 1 {
		noun = plural.Noun(noun)
	}
	list := parts[len(parts)-1]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " and " + list
	}
	return list + " " + noun
}

// openDiffSides loads both sides at once; an input that cannot be used is an input error (exit 2).
func openDiffSides(cmd *cobra.Command, gitRev string, args []string, opts input.Options) (*diff.Side, *diff.Side, error) {
	var oldSide, newSide *diff.Side
	var err error
	if gitRev != "" {
		oldSide, newSide, err = input.OpenGitPair(cmd.Context(), gitRev, args[0], opts)
	} else {
		for _, ref := range args[:2] {
			if err := bundleDirNotCatalog(ref); err != nil {
				return nil, nil, err
			}
		}
		oldSide, newSide, err = input.OpenPair(cmd.Context(), args[0], args[1], opts)
	}
	if err != nil {
		return nil, nil, err
	}
	if other, left := input.ScopeToTemplate(oldSide, newSide); len(left) > 0 {
		tmpl := newSide
		if other == newSide {
			tmpl = oldSide
		}
		names, what, them := packageNames(tmpl), "package", "it"
		if len(names) != 1 {
			what = plural.Noun(what)
		}
		if len(left) != 1 {
			them = "them"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: compared only the template's %s %s (%s); %s of %s left out (%s): the template does not hold %s\n",
			what, textsafe.Terminal(strings.Join(names, ", ")), tmpl.Source, plural.Of(len(left), "other package"), other.Source, textsafe.Terminal(briefList(left, 3)), them)
	}
	return oldSide, newSide, nil
}

// briefList lists names, at most n of them and how many more.
func briefList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// packageNames are the names of the olm.package blobs of a side, in order.
func packageNames(s *diff.Side) []string {
	var out []string
	if s.Catalog != nil {
		for _, p := range s.Catalog.Packages {
			out = append(out, p.Name)
		}
	}
	return out
}
