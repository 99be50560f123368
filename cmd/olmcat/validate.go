package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/resolve"
	"github.com/olmcat/olmcat/internal/bytepool"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newValidateCmd) }

const validateLong = `Validate a catalog: a File-Based Catalog as it is, or the catalog an index.db migrates to
(then each place where opm migrate would fail or lose data is a warning named migrate-<code>, as in
olmcat migrate's report).

Every rule opm applies when it loads a catalog is checked, and every problem is reported at once,
each with the file and line of the blob it comes from, its package/channel/bundle and a fix hint.
Those are errors: the command exits 1 exactly where opm validate would fail.

Graph problems opm does not see are warnings (exit 0), or errors with --strict:
  upgrade-cycle               a cycle through replaces/skips edges
  skipped-on-replaces-chain   a bundle the replaces chain runs through although another entry skips it
                              (OLM v0 never upgrades to a skipped bundle: its replaces offers nothing)
  unreachable-from-head       a bundle whose users OLM v0 never brings to the head (one warning per bundle;
                              fbc/model/UPGRADES.md says how OLM v0 picks upgrades)
  custom-schema-name          a custom schema name that opm validate accepts but opm serve refuses
  template-in-catalog         a catalog template among a catalog's files: served as a custom blob, not rendered
  invalid-utf8                bytes that are not UTF-8, read as U+FFFD (opm reads them so without a word)
  downgrade-offered           a bundle whose users OLM v0 offers a lower version (a skipRange with no upper
                              bound covers newer bundles); when that offer comes first, OLM v0 moves them down

Facts that may be fine where the catalog is used are info (never exit 1, not even with --strict):
  requirement-not-in-catalog  a bundle requiring a package or API (olm.package.required, olm.gvk.required)
                              no bundle of the catalog provides: OLM v0 keeps users on their installed version
                              unless another catalog of the cluster provides it

OLM v0 and OLM v1 (--olm v0|v1|both, default both): the graph findings above are OLM v0's (Subscriptions:
channel head, replaces chain); each says what OLM v1 does there instead. OLM v1 (ClusterExtensions: the
highest version among the successors, every channel when none is asked; answers from olmcat resolve's
resolver, asked with no version range) has findings of its own:
  v1-installs-prerelease      a prerelease or nightly OLM v1 installs, or upgrades users of a release to
                              (warning where OLM v0 picks something else, info where it picks it too)
  v1-left-behind              users OLM v1 keeps short of the channel head: every successor has a lower
                              version, or none reaches a higher version of the channel (warning)
  v1-duplicate-version        bundles OLM v1 takes as one version (build metadata that is no release):
                              it picks between them by file order (warning when it moves users, else info)
--olm v0 prints no OLM v1 finding, --olm v1 no finding that holds for OLM v0 only.

Text output (default): one line per issue on stdout,
  FILE:LINE: SEVERITY: package "P", channel "C", bundle "B": MESSAGE (fix: HINT)
and a summary line on stderr.

JSON output (-o json) is a stable document, and -o yaml the same document in YAML:
  {"passed": bool, "error": {"message": "..."} (only when not passed), "errors": N, "warnings": N,
   "info": N (only when there is any),
   "issues": [{"severity": "error"|"warning"|"info", "rule": "...", "file": "...", "line": N,
               "package": "...", "channel": "...", "bundle": "...", "message": "...", "hint": "...",
               "olm": ["v0"]|["v1"] (the generations the finding holds for; absent when it does not depend on it)}]}
Empty fields are left out; issues are sorted by file and line; "rule" values are stable identifiers.
"passed" and "error.message" are the keys opm validate -o json|yaml (v1.72) prints, so that scripts
reading opm's keep working; the message holds the issues that fail the catalog, one per line.

A bundle directory (manifests/ and metadata/) is validated as 'olmcat validate bundle DIR' does
(opm validate would read its manifests as catalog blobs and fail on each); this is said on stderr.

Exit codes: 0 valid, 1 errors found (or warnings with --strict), 2 bad usage or an input that
cannot be used (not found, not a catalog, empty, damaged, ...).`

func newValidateCmd() *cobra.Command {
	var output string
	var strict bool
	var olm string
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "validate CATALOG",
		Short: "Check a catalog against opm's rules and common upgrade-graph bugs; report every problem",
		Long:  validateLong + "\n\n" + referenceHelp,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" && output != "yaml" {
				return usageError{fmt.Errorf("-o must be text, json or yaml, not %q", output)}
			}
			gens, err := model.ParseGenerations(olm)
			if err != nil {
				return usageError{fmt.Errorf("--olm: %w", err)}
			}
			if isBundleDir(args[0]) {
				return validateBundleDirRef(cmd, args[0], strict, output)
			}
			defer validateGC()()
			startProgress(cmd).Phase("validating")
			src, err := in.open(cmd, args[0])
			if err != nil {
				return err
			}
			defer src.Close()
			expectPackages(cmd, src)
			opts := model.Options{Strict: strict, OLM: gens}
			if gens.Includes(model.OLMv1) {
				opts.Review = resolve.ReviewV1
			}
			issues, err := validateSource(cmd.Context(), src, opts)
			if err != nil {
				return err
			}
			report := model.NewReport(issues)
			activeProgress(cmd).Close()
			if err := writeValidateReport(cmd.OutOrStdout(), summaryOut(cmd), report, output); err != nil {
				return err
			}
			if !report.Passed {
				return exitError{code: exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or yaml")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings (graph problems opm accepts) as errors")
	cmd.Flags().StringVar(&olm, "olm", "both", "the OLM generations to speak for: v0 (Subscriptions), v1 (ClusterExtensions) or both")
	addInputFlags(cmd.Flags(), &in)
	addMigrateLevelFlag(cmd.Flags(), &in.migrateLevel)
	return cmd
}

// validateSource streams the catalog through the validator in one pass. Problems of the content
// (syntax errors, bad blobs) become issues; an input that cannot be read is an error. An index.db
// is validated as the catalog it migrates to, with a warning for every place where opm migrate
// would have failed or lost data (olmcat's migrate repairs those; see its report).
func validateSource(ctx context.Context, src *source.Source, opts model.Options) (model.Issues, error) {
	v := model.NewValidator(opts)
	if src.Format() == source.FormatFBC {
		return v.Finish(src.Walk(ctx, func(b fbc.Blob) error {
			err := v.Add(b)
			bytepool.Put(b.Data) // the validator keeps nothing of a blob's text
			return err
		}))
	}
	err := src.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error {
		v.AddCatalog(c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	issues, err := v.Finish(nil)
	if err != nil {
		return nil, err
	}
	for _, d := range src.Departures().Departures {
		sev := model.Warning
		if opts.Strict {
			sev = model.Error
		}
		issues = append(issues, &model.Issue{Severity: sev, Rule: "migrate-" + string(d.Code), File: src.String(),
			Package: d.Package, Channel: d.Channel, Bundle: d.Bundle,
			Message: "opm migrate " + d.Opm + "; olmcat migrate " + d.Olmcat,
			Hint:    "fix the index.db, or migrate it with olmcat, which does what is described"})
	}
	model.SortIssues(issues)
	return issues, nil
}

func writeValidateReport(stdout, stderr io.Writer, r model.Report, output string) error {
	if output == "json" || output == "yaml" {
		doc := withOpmValidateKeys(r)
		if output == "yaml" {
			return writeYAMLDoc(stdout, doc)
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	for _, i := range r.Issues {
		// One line per issue: what the catalog put in it (names, the text of a parse error) shows
		// its control characters escaped, so that no issue hides the others or forges the verdict.
		if _, err := fmt.Fprintln(stdout, textsafe.Terminal(i.Error())); err != nil {
			return err
		}
	}
	verdict := "valid"
	if !r.Passed {
		verdict = "invalid"
	}
	info := ""
	if r.Info > 0 {
		info = fmt.Sprintf(", %d info", r.Info)
	}
	_, err := fmt.Fprintf(stderr, "olmcat: %s: %s, %s%s\n", verdict, plural.Of(r.Errors, "error"), plural.Of(r.Warnings, "warning"), info)
	return err
}
