package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/internal/textsafe"
)

// applyUsageRules gives every command of the tree the same handling of how it was called (issue 34):
//
//   - a wrong number of arguments names the missing (or the unexpected) argument from the command's
//     Use line, then shows the usage line, instead of cobra's "accepts 2 arg(s), received 1";
//   - a mistyped subcommand, of olmcat or of a group (inspect, bundle, generate, ...), is an error
//     (exit 2) with the nearest command on the same line, never cobra's tab-indented list;
//   - the human output format is called text everywhere; table is accepted as its alias;
//   - a list flag whose default is empty shows no "(default [])" in --help, as the others.
//
// It runs once the tree is complete (newRootCmd), so that a command added later gets it too.
func applyUsageRules(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c == root || !c.Runnable() && c.HasSubCommands():
			// olmcat and its groups: bare, they show their help (as before); with a word that is
			// not one of their commands, they say so.
			c.Args = subcommandArgs
			if !c.Runnable() {
				c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
			}
		case c.Args != nil && c.Runnable():
			c.Args = namedArgs(c.Args)
		}
		unifyHumanFormat(c)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.DefValue == "[]" {
				f.DefValue = "" // an empty list is no default: --help shows none, as for other lists
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// subcommandArgs is the argument check of olmcat and of its command groups: any argument is a
// command that does not exist.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usageError{unknownCommandError(cmd, args[0])}
}

func unknownCommandError(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which it sets only when it suggests itself
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + orList(s) + "?"
	}
	return fmt.Errorf("%s\nrun '%s --help' for its commands", msg, cmd.CommandPath())
}

// orList joins words as a sentence does: "a", "a or b", "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// positional is one argument of a Use line: CATALOG, [FILE], BUNDLE..., (DIR | IMAGE)...
type positional struct {
	name     string
	optional bool
	variadic bool
}

// namedArgs wraps a command's argument check: the check decides, as before; its refusal is
// rewritten to name the arguments of the Use line. A command's own message (diff's, compat's) is
// kept, with the usage line added.
func namedArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil {
			return nil
		}
		usage := fmt.Sprintf("usage: %s\nrun '%s --help' for details", cmd.UseLine(), cmd.CommandPath())
		var own usageError
		if asUsage(err, &own) {
			return usageError{fmt.Errorf("%w\n%s", own.err, usage)}
		}
		return usageError{fmt.Errorf("%s\n%s", argsProblem(cmd, useArgs(cmd.Use), args, err), usage)}
	}
}

func asUsage(err error, u *usageError) bool {
	v, ok := err.(usageError)
	if ok {
		*u = v
	}
	return ok
}

// argsProblem says what is wrong with args, given the arguments the Use line names.
func argsProblem(cmd *cobra.Command, spec []positional, args []string, cobraErr error) string {
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	required, unlimited := 0, false
	var names []string
	for _, p := range spec {
		if !p.optional {
			required++
		}
		unlimited = unlimited || p.variadic
		n := p.name
		if p.optional {
			n = "[" + n + "]"
		}
		if p.variadic {
			n += "..."
		}
		names = append(names, n)
	}
	switch {
	case len(args) < required:
		var missing []string
		seen := 0
		for _, p := range spec {
			if p.optional {
				continue
			}
			if seen >= len(args) {
				missing = append(missing, p.name)
			}
			seen++
		}
		verb := "is"
		if len(missing) > 1 {
			verb = "are"
		}
		return fmt.Sprintf("%s needs %s: %s %s missing", name, strings.Join(names, " "), andList(missing), verb)
	case len(spec) == 0:
		return fmt.Sprintf("%s takes no arguments, got %s", name, quotedList(args))
	case !unlimited && len(args) > len(spec):
		extra := args[len(spec):]
		what := "argument"
		if len(extra) > 1 {
			what = "arguments"
		}
		return fmt.Sprintf("%s takes %s, got %d arguments: unexpected %s %s", name, strings.Join(names, " "), len(args), what, quotedList(extra))
	}
	// The Use line does not explain the refusal (a check of its own): cobra's words, then the usage.
	return fmt.Sprintf("%s: %v", name, cobraErr)
}

func quotedList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, " ")
}

// useArgs reads the positional arguments of a Use line: "migrate CATALOG OUT", "render CATALOG...",
// "render-template [TYPE] [FILE]", "bundle validate (DIR [--labels FILE | --image REF] | IMAGE)",
// "rm CATALOG [BUNDLE...] [--package P [--channel C]] (--output-dir DIR | ...)". Groups that hold
// flags are not arguments; of alternatives ("diff OLD NEW | diff --git REV PATH") the first counts.
func useArgs(use string) []positional {
	var out []positional
	groups := useGroups(use)
	if len(groups) > 0 {
		groups = groups[1:] // the command's name
	}
	for _, g := range groups {
		if g == "|" {
			break // an alternative spelling of the command follows
		}
		if isFlagGroup(g) {
			continue
		}
		p := positional{}
		if strings.HasSuffix(g, "...") {
			p.variadic, g = true, strings.TrimSuffix(g, "...")
		}
		switch {
		case strings.HasPrefix(g, "[") && strings.HasSuffix(g, "]"):
			p.optional, g = true, g[1:len(g)-1]
			if strings.HasSuffix(g, "...") {
				p.variadic, g = true, strings.TrimSuffix(g, "...")
			}
		case strings.HasPrefix(g, "(") && strings.HasSuffix(g, ")"):
			g = alternativesName(g[1 : len(g)-1])
		}
		if g == "" || strings.ToUpper(g) != g {
			continue // a subcommand's word (render bundle ...), not an argument
		}
		p.name = g
		out = append(out, p)
	}
	return out
}

// useGroups splits a Use line at the spaces outside brackets and parentheses.
func useGroups(use string) []string {
	var groups []string
	depth, start := 0, 0
	for i, r := range use {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ' ':
			if depth == 0 {
				if i > start {
					groups = append(groups, use[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(use) {
		groups = append(groups, use[start:])
	}
	return groups
}

func isFlagGroup(g string) bool {
	return strings.HasPrefix(strings.TrimLeft(g, "[("), "-")
}

// alternativesName names "DIR [--labels FILE | --image REF] | IMAGE" as "DIR|IMAGE".
func alternativesName(inner string) string {
	var names []string
	for _, alt := range splitTopLevel(inner, '|') {
		for _, g := range useGroups(strings.TrimSpace(alt)) {
			if !isFlagGroup(g) && !strings.HasPrefix(g, "[") {
				names = append(names, g)
				break
			}
		}
	}
	return strings.Join(names, "|")
}

func splitTopLevel(s string, sep rune) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case sep:
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// flagError is the error of a flag that does not parse: for an unknown flag, the nearest of the
// command's flags (its own and those it inherits) is suggested.
func flagError(c *cobra.Command, err error) error {
	msg := textsafe.Terminal(err.Error()) // a flag as typed: one line, whatever it holds
	if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
		if s := nearestFlags(c, name); len(s) > 0 {
			msg += " (did you mean " + orList(s) + "?)"
		}
	} else if _, word, ok := strings.Cut(err.Error(), "unknown shorthand flag: "); ok {
		// -package, as opm's Go-style flags are written: a long flag with one dash.
		if _, typed, ok := strings.Cut(word, " in -"); ok && len(typed) > 1 {
			typed, _, _ = strings.Cut(typed, "=")
			if s := nearestFlags(c, typed); len(s) > 0 {
				msg += " (did you mean " + orList(s) + "?)"
			}
		}
	}
	return usageError{fmt.Errorf("%s\nrun '%s --help' for usage", msg, c.CommandPath())}
}

// nearestFlags are the visible flags of c closest to name by edit distance (at most 2, or a third
// of the name's length for long names), or that name begins; "--" included.
func nearestFlags(c *cobra.Command, name string) []string {
	limit := max(2, len(name)/3)
	best := limit + 1
	var found []string
	consider := func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		d := levenshtein(name, f.Name)
		if d > limit && len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = limit // a prefix of the flag: as near as the limit allows
		}
		switch {
		case d < best:
			best, found = d, []string{"--" + f.Name}
		case d == best:
			found = append(found, "--"+f.Name)
		}
	}
	seen := map[string]bool{}
	for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
		fs.VisitAll(func(f *pflag.Flag) {
			if !seen[f.Name] {
				seen[f.Name] = true
				consider(f)
			}
		})
	}
	if best > limit {
		return nil
	}
	return found
}

// levenshtein is the edit distance between a and b (insertions, deletions, substitutions).
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// humanFormat is the one name of the human-readable output format (-o) on every command; the
// other name some commands used, table, is its alias.
const (
	humanFormat      = "text"
	humanFormatAlias = "table"
)

var humanFormatWord = regexp.MustCompile(`\b(text|table)\b`)

// unifyHumanFormat makes a command's -o accept text and table alike for its human format, shows
// it as text in --help, and hands the command the name it checks for.
func unifyHumanFormat(c *cobra.Command) {
	f := c.Flags().Lookup("output")
	if f == nil || f.Value.Type() != "string" {
		return
	}
	m := humanFormatWord.FindString(f.Usage)
	if m == "" || !strings.HasPrefix(f.Usage, "output format") && !strings.HasPrefix(f.Usage, "report format") {
		return
	}
	f.Value = humanFormatValue{Value: f.Value, internal: m}
	f.Usage = humanFormatWord.ReplaceAllString(f.Usage, humanFormat)
	if f.DefValue == m {
		f.DefValue = humanFormat
	}
}

type humanFormatValue struct {
	pflag.Value
	internal string // the name the command's code uses: text or table
}

func (v humanFormatValue) Set(s string) error {
	if s == humanFormat || s == humanFormatAlias {
		s = v.internal
	}
	return v.Value.Set(s)
}

func (v humanFormatValue) String() string {
	if s := v.Value.String(); s != v.internal {
		return s
	}
	return humanFormat
}
