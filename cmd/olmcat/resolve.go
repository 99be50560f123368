package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/resolve"
	"github.com/olmcat/olmcat/fbc/v1install"
	"github.com/olmcat/olmcat/internal/textsafe"
)

func init() { register(newResolveCmd) }

const resolveLong = `Say what OLM v1 (operator-controller) installs or upgrades to for a ClusterExtension.

  olmcat resolve CATALOG --package P [--channel C]... [--version RANGE] [--installed BUNDLE]
                 [--policy CatalogProvided|SelfCertified] [-o text|json]
  olmcat resolve CATALOG --queries FILE.jsonl [-o json|text]
  olmcat resolve CATALOG --olm v0 --package P [--channel C] [--installed BUNDLE]

The rules are those of operator-controller's code (resolve.CatalogResolver with
NoDependencyValidation, at df2c201d, 2026-08-21), not of its documentation:
  - the pick is the highest version among the candidates, never the channel head or the end of the
    replaces chain; bundles deprecated by the package's olm.deprecations sort last; build metadata
    that is a valid release counts (1.0.0+2 above 1.0.0+1 above 1.0.0); equal versions keep catalog
    order;
  - no --channel means every channel of the package (the default channel plays no part);
  - --version is a Masterminds semver range (">=1.2 <2", "~1.4", "1.x"); a prerelease matches only a
    range that names a prerelease; with no range, prereleases are candidates like any version;
  - with --installed (a bundle of the package; its version is looked up in the catalog) and the
    CatalogProvided policy (the default), the candidates are its successors: bundles whose entry in
    the asked channels (all when none) replaces it, skips it or has a skipRange covering its
    version, and every bundle of the same version (the installed one included); SelfCertified
    drops that filter;
  - a pick that declares dependencies (olm.package.required, olm.gvk.required, olm.constraint) is
    refused, with no fallback to another bundle.
A refusal is printed in operator-controller's words, as the ClusterExtension's status would say it.

--queries answers many queries: one JSON object a line with package, channels, version, policy and
installed {name, version} (version left out: looked up in the catalog); fields of an answer (bundle,
error, successors, ...) are ignored, so a previous output can be answered again. The output is one
JSON line per query, in order: the query with bundle and bundleVersion, or error (with
pickedBeforeValidation when the dependency check refused the pick), and successors when a bundle is
installed. -o text writes one line per query instead.

--olm v0 answers for a Subscription instead (OLM v0's catalog operator, operator-lifecycle-manager's
resolver): each channel is ordered along its replaces chain from the head, entries another entry
skips left out (several chains, no head or a cycle are OLM v0's errors); no --channel means every
channel, the default channel first, then by name; the pick is the first entry (the default
channel's head), or with --installed the first entry that replaces it, skips it or whose skipRange
covers its version, and with none the Subscription stays on the installed bundle. It is taken to be
the only Subscription, named after its package, with nothing else installed; dependencies are not
resolved (a pick that declares some is noted). --version and --policy are OLM v1 fields.

Exit codes: 0 a bundle was picked (with --queries: every query was answered, refusals included),
1 OLM v1 refuses, 2 bad usage or an input that cannot be used.

` + referenceHelp

type resolveFlags struct {
	pkg, version, installed, policy, olm, output, queries string
	channels                                              []string
}

func newResolveCmd() *cobra.Command {
	var f resolveFlags
	var in inputFlags
	cmd := &cobra.Command{
		Use:   "resolve CATALOG --package P [--channel C]... [--version RANGE] [--installed BUNDLE] [--policy P] [-o text|json]",
		Short: "Say which bundle OLM v1 installs or upgrades to for a ClusterExtension (or why it refuses)",
		Long:  resolveLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(cmd); err != nil {
				return usageError{err}
			}
			var queries []resolve.Query
			if f.queries == "-" && args[0] == "-" {
				return usageError{fmt.Errorf("the catalog and --queries cannot both be standard input; give one of them as a file")}
			}
			if f.queries != "" {
				qs, err := readQueryFile(f.queries, cmd.InOrStdin())
				if err != nil {
					return usageError{err}
				}
				queries = qs
			}
			side, err := input.Open(cmd.Context(), args[0], input.Options{Source: in.options(cmd)})
			if err != nil {
				return err
			}
			if err := checkLoaded(side); err != nil {
				return err
			}
			r, err := resolve.New(side.Catalog)
			if err != nil {
				return usageError{fmt.Errorf("%s: %w", side.Source, err)}
			}
			picks := pickJudge{olm: f.olm, bundles: bundlesByName(side.Catalog)}
			if f.queries != "" {
				return answerQueries(cmd.OutOrStdout(), r, picks, queries, f.queries, f.output)
			}
			q := resolve.Query{Package: f.pkg, Channels: f.channels, Version: f.version, Policy: f.policy}
			if f.installed != "" {
				v, ok := r.BundleVersion(f.pkg, f.installed)
				if !ok {
					return usageError{fmt.Errorf("--installed %s: no bundle of that name with a readable version in package %s of %s; name a bundle of the package (olmcat inspect lists them)",
						textsafe.Terminal(f.installed), textsafe.Terminal(f.pkg), side.Source)}
				}
				q.Installed = &resolve.Installed{Name: f.installed, Version: v}
			}
			ans := picks.answer(r, q)
			if !r.HasPackage(q.Package) {
				fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: note: %s has no package %s (olmcat inspect packages lists them)\n", side.Source, textsafe.Terminal(q.Package))
			} else if missing := r.MissingChannels(q.Package, q.Channels); len(missing) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: note: package %s has no channel %s; its channels: %s\n", textsafe.Terminal(q.Package),
					textsafe.Terminal(strings.Join(missing, ", ")), textsafe.Terminal(strings.Join(r.Channels(q.Package), ", ")))
			}
			if err := writeAnswer(cmd.OutOrStdout(), q, ans, f.output); err != nil {
				return outputError{err}
			}
			if ans.Error != "" {
				return exitError{code: exitFindings}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.pkg, "package", "", "the ClusterExtension's packageName")
	fl.StringArrayVar(&f.channels, "channel", nil, "a channel to resolve in (repeat for several; none: every channel)")
	fl.StringVar(&f.version, "version", "", "a version range (Masterminds semver constraint, e.g. \">=1.2.0 <2.0.0\")")
	fl.StringVar(&f.installed, "installed", "", "the installed bundle's name (its version is looked up in the catalog)")
	fl.StringVar(&f.policy, "policy", resolve.CatalogProvided, "upgrade constraint policy: CatalogProvided or SelfCertified")
	fl.StringVar(&f.olm, "olm", "v1", "which OLM resolves: v1 (a ClusterExtension) or v0 (a Subscription)")
	fl.StringVarP(&f.output, "output", "o", "", "output format: text or json (default text; json with --queries)")
	fl.StringVar(&f.queries, "queries", "", "answer the queries of this JSON-lines file (- for standard input)")
	addInputFlags(fl, &in)
	addMigrateLevelFlag(fl, &in.migrateLevel)
	return cmd
}

func (f *resolveFlags) check(cmd *cobra.Command) error {
	switch f.olm {
	case "v1":
	case "v0":
		for _, name := range []string{"version", "policy"} {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s is a ClusterExtension field (OLM v1); a Subscription (--olm v0) has none", name)
			}
		}
		if len(f.channels) > 1 {
			return fmt.Errorf("a Subscription (--olm v0) names one channel, not %d", len(f.channels))
		}
		f.policy = ""
	default:
		return fmt.Errorf("--olm must be v1 or v0, not %q", f.olm)
	}
	switch f.output {
	case "":
		f.output = "text"
		if f.queries != "" {
			f.output = "json"
		}
	case "text", "json":
	default:
		return fmt.Errorf("-o must be text or json, not %q", f.output)
	}
	if f.queries != "" {
		for _, name := range []string{"package", "channel", "version", "installed", "policy"} {
			if cmd.Flags().Changed(name) {
				return fmt.Errorf("--%s is a field of each query with --queries, not a flag", name)
			}
		}
		return nil
	}
	if f.pkg == "" {
		return fmt.Errorf("--package is required (or --queries FILE)")
	}
	return resolve.Query{Package: f.pkg, Channels: f.channels, Policy: f.policy}.Check()
}

// readQueryFile reads the queries of a file, or standard input for "-".
func readQueryFile(name string, stdin io.Reader) ([]resolve.Query, error) {
	r := stdin
	if name != "-" {
		file, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--queries: %w", err)
		}
		defer file.Close()
		r = file
	}
	qs, err := resolve.ReadQueries(r, name)
	if err != nil {
		return nil, fmt.Errorf("--queries %w; fix the line (one JSON object a line)", err)
	}
	return qs, nil
}

// answerQueries answers each query in order; a query whose installed bundle has no version and is
// not in the catalog is refused as a usage error naming its line, before anything is written.
func answerQueries(w io.Writer, r *resolve.Resolver, picks pickJudge, queries []resolve.Query, name, format string) error {
	for i := range queries {
		q := &queries[i]
		if q.Installed != nil && q.Installed.Version == "" {
			v, ok := r.BundleVersion(q.Package, q.Installed.Name)
			if !ok {
				return usageError{fmt.Errorf("--queries %s: query %d: installed %s has no version and is no bundle of package %s with a readable version; give installed.version",
					name, i+1, textsafe.Terminal(q.Installed.Name), textsafe.Terminal(q.Package))}
			}
			q.Installed.Version = v
		}
	}
	bw := bufio.NewWriter(w)
	for _, q := range queries {
		ans := picks.answer(r, q)
		var err error
		if format == "json" {
			err = writeAnswer(bw, q, ans, format)
		} else {
			_, err = fmt.Fprintln(bw, textLine(q, ans))
		}
		if err != nil {
			return outputError{err}
		}
	}
	if err := bw.Flush(); err != nil {
		return outputError{err}
	}
	return nil
}

// pickJudge answers queries as OLM v1 (a ClusterExtension) or OLM v0 (a Subscription), and for
// OLM v1 judges the pick (or the pick the dependency check refused) as OLM v1's installer does.
type pickJudge struct {
	olm     string
	bundles map[string]*fbc.Bundle // "package/name"
}

func bundlesByName(c *fbc.Catalog) map[string]*fbc.Bundle {
	m := make(map[string]*fbc.Bundle, len(c.Bundles))
	for i := range c.Bundles {
		b := &c.Bundles[i]
		m[b.Package+"/"+b.Name] = b
	}
	return m
}

// answered is an answer and, for OLM v1, the install verdict of its pick.
type answered struct {
	resolve.Answer
	Install *v1install.Verdict `json:"install,omitempty"`
}

func (p pickJudge) answer(r *resolve.Resolver, q resolve.Query) answered {
	if p.olm == "v0" {
		return answered{Answer: r.ResolveV0(q)}
	}
	a := answered{Answer: r.Resolve(q)}
	pick := a.Bundle
	if pick == "" {
		pick = a.PickedBeforeValidation
	}
	if b := p.bundles[q.Package+"/"+pick]; pick != "" && b != nil {
		v := v1install.Judge(b)
		if v.Judged() || v.DependencyError != "" {
			a.Install = &v
		}
	}
	return a
}

// result is one output line: the query and its answer.
type result struct {
	resolve.Query
	answered
}

func writeAnswer(w io.Writer, q resolve.Query, ans answered, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w) // one line; ranges such as ">=1.0" unescaped
		enc.SetEscapeHTML(false)
		return enc.Encode(result{q, ans})
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "package:    %s\n", textsafe.Terminal(q.Package))
	if len(q.Channels) > 0 {
		fmt.Fprintf(&sb, "channels:   %s\n", textsafe.Terminal(strings.Join(q.Channels, ", ")))
	} else {
		sb.WriteString("channels:   (every channel of the package)\n")
	}
	if q.Version != "" {
		fmt.Fprintf(&sb, "version:    %s\n", textsafe.Terminal(q.Version))
	}
	if q.Installed != nil {
		policy := ", policy " + q.Policy
		if q.Policy == "" {
			policy = "" // OLM v0: a Subscription has no policy
		}
		fmt.Fprintf(&sb, "installed:  %s (%s)%s\n", textsafe.Terminal(q.Installed.Name), textsafe.Terminal(q.Installed.Version), policy)
		if ans.Successors != nil {
			fmt.Fprintf(&sb, "successors: %s\n", listOrNone(ans.Successors))
		}
	}
	if ans.Error != "" {
		if ans.PickedBeforeValidation != "" {
			fmt.Fprintf(&sb, "picked:     %s (refused by the dependency check)\n", textsafe.Terminal(ans.PickedBeforeValidation))
		}
		fmt.Fprintf(&sb, "refused:    %s\n", textsafe.Terminal(ans.Error))
	} else {
		fmt.Fprintf(&sb, "bundle:     %s\n", textsafe.Terminal(ans.Bundle))
		fmt.Fprintf(&sb, "version:    %s\n", textsafe.Terminal(ans.BundleVersion))
	}
	if ans.Note != "" {
		fmt.Fprintf(&sb, "note:       %s\n", textsafe.Terminal(ans.Note))
	}
	if ans.Install != nil && ans.Install.Judged() {
		fmt.Fprintf(&sb, "install:    %s\n", textsafe.Terminal(installLine(*ans.Install)))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// installLine says what OLM v1's installer does with the pick, and from what it was judged.
func installLine(v v1install.Verdict) string {
	from := " (judged from its " + string(v.Source) + ")"
	switch {
	case v.OK:
		return "OLM v1's installer accepts it" + from
	case v.OKWithGate && v.Gate == v1install.GateWatchInstallNamespace:
		return "refused: " + v.Error + from + "; with SingleOwnNamespaceInstallSupport on, accepted with watchNamespace = the install namespace"
	case v.OKWithGate && v.Gate == v1install.GateWatchOtherNamespace:
		return "refused: " + v.Error + from + "; with SingleOwnNamespaceInstallSupport on, accepted with watchNamespace = another namespace"
	case v.OKWithGate:
		return "refused: " + v.Error + from + "; with SingleOwnNamespaceInstallSupport on, accepted"
	}
	return "refused: " + v.Error + from + "; SingleOwnNamespaceInstallSupport does not help"
}

// textLine is one query and its answer on one line (--queries -o text).
func textLine(q resolve.Query, ans answered) string {
	var sb strings.Builder
	sb.WriteString(q.Package)
	if len(q.Channels) > 0 {
		fmt.Fprintf(&sb, " channels=%s", strings.Join(q.Channels, ","))
	}
	if q.Version != "" {
		fmt.Fprintf(&sb, " version=%q", q.Version)
	}
	if q.Policy == resolve.SelfCertified {
		sb.WriteString(" policy=SelfCertified")
	}
	if q.Installed != nil {
		fmt.Fprintf(&sb, " installed=%s", q.Installed.Name)
	}
	if ans.Error != "" {
		fmt.Fprintf(&sb, ": refused: %s", ans.Error)
	} else {
		fmt.Fprintf(&sb, ": %s (%s)", ans.Bundle, ans.BundleVersion)
	}
	if ans.Successors != nil {
		fmt.Fprintf(&sb, " successors: %s", listOrNone(ans.Successors))
	}
	return textsafe.Terminal(sb.String())
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return textsafe.Terminal(strings.Join(names, ", "))
}
