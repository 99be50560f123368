// Package report writes a diff.Report for people and programs: terminal tables, JSON (the versioned
// schema of diff/SCHEMA.md), Markdown for a pull-request comment, and a one-line-per-package stat.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/internal/plural"
)

// Formats accepted by Write.
const (
	FormatTable    = "table"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Write renders the report in one of the formats.
func Write(w io.Writer, r *diff.Report, format string) error {
	switch format {
	case FormatTable, "":
		return Table(w, r)
	case FormatJSON:
		return JSON(w, r)
	case FormatMarkdown:
		return Markdown(w, r)
	}
	return fmt.Errorf("unknown output format %q (use table, json or markdown)", format)
}

// JSON writes the report as indented JSON, HTML characters unescaped.
func JSON(w io.Writer, r *diff.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Table writes a summary line, then one table of findings per changed package.
func Table(w io.Writer, r *diff.Report) error {
	if _, err := fmt.Fprintln(w, summaryLine(r)); err != nil {
		return err
	}
	names, groups := diff.ByPackage(r.Findings)
	for _, name := range names {
		if _, err := fmt.Fprintf(w, "\n%s\n", packageTitle(r, name)); err != nil {
			return err
		}
		t := tablewriter.NewTable(w,
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithRowAutoWrap(tw.WrapNormal),
			tablewriter.WithRowMaxWidth(60),
		)
		t.Header("SEVERITY", "KIND", "WHERE", "CHANGE")
		for _, f := range groups[name] {
			if err := t.Append(string(f.Severity), string(f.Kind), where(f), change(f)); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}

// summaryLine says what was compared and how many findings of each severity there are.
func summaryLine(r *diff.Report) string {
	s := r.Summary
	return fmt.Sprintf("%s -> %s: %s (%s changed)", r.Old.Source, r.New.Source, severityCounts(s), plural.Of(changedPackages(r), "package"))
}

func changedPackages(r *diff.Report) int {
	n := 0
	for _, p := range r.Packages {
		if p.Status != diff.StatusUnchanged {
			n++
		}
	}
	return n
}

// displayName names a package in reports; blobs that belong to no package are "(catalog)".
func displayName(pkg string) string {
	if pkg == "" {
		return "(catalog)"
	}
	return pkg
}

func packageTitle(r *diff.Report, name string) string {
	if name == "" {
		return displayName(name)
	}
	for _, p := range r.Packages {
		if p.Name == name {
			return fmt.Sprintf("package %s (%s)", name, p.Status)
		}
	}
	return "package " + name
}

// where locates a finding inside its package.
func where(f diff.Finding) string {
	var parts []string
	if f.Channel != "" {
		parts = append(parts, "channel "+f.Channel)
	}
	if f.Bundle != "" {
		parts = append(parts, "bundle "+f.Bundle)
	}
	if f.Field != "" {
		parts = append(parts, f.Field)
	}
	return strings.Join(parts, "\n")
}

// change is the message, with old and new values when they add something.
func change(f diff.Finding) string {
	msg := f.Message
	if f.Old != "" || f.New != "" {
		if !strings.Contains(msg, f.Old) || !strings.Contains(msg, f.New) {
			msg += "\n" + orDash(f.Old) + " → " + orDash(f.New)
		}
	}
	return msg
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Stat writes one line per changed package and a total line, like git diff --stat.
func Stat(w io.Writer, r *diff.Report) error {
	width := 0
	for _, p := range r.Packages {
		if p.Status != diff.StatusUnchanged && len(displayName(p.Name)) > width {
			width = len(displayName(p.Name))
		}
	}
	for _, p := range r.Packages {
		if p.Status == diff.StatusUnchanged {
			continue
		}
		if _, err := fmt.Fprintf(w, "%-*s | %-9s | %s | %s\n", width, displayName(p.Name), p.Status, statCounts(p), severityCounts(p.Findings)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s changed, %d unchanged; %s\n", plural.Of(changedPackages(r), "package"), len(r.Packages)-changedPackages(r), severityCounts(r.Summary))
	return err
}

func statCounts(p diff.PackageStat) string {
	return fmt.Sprintf("channels +%d -%d, bundles +%d -%d ~%d",
		p.ChannelsAdded, p.ChannelsRemoved, p.BundlesAdded, p.BundlesRemoved, p.BundlesChanged)
}

func severityCounts(c diff.Counts) string {
	return fmt.Sprintf("%d breaking, %s, %d info", c.Breaking, plural.Of(c.Warning, "warning"), c.Info)
}
