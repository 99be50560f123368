package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/progress"
	"github.com/olmcat/olmcat/internal/source"
)

// addProgressFlags adds --quiet and --progress to every command.
func addProgressFlags(f *pflag.FlagSet) {
	f.BoolP("quiet", "q", false, "print no progress and no summary on stderr (warnings and errors are still printed)")
	f.String("progress", string(progress.Auto), "show what a long command is doing on stderr, on one line replaced in place: auto (when stderr is a terminal), always or never")
}

// checkProgressFlags refuses a --progress value that is not a mode.
func checkProgressFlags(cmd *cobra.Command) error {
	if f := cmd.Flag("progress"); f != nil {
		if _, err := progress.ParseMode(f.Value.String()); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// quiet says whether --quiet was given: summaries that are not warnings or errors are left out.
func quiet(cmd *cobra.Command) bool {
	f := cmd.Flag("quiet")
	return f != nil && f.Value.String() == "true"
}

// summaryOut is where a command writes its summary on stderr: nowhere with --quiet.
func summaryOut(cmd *cobra.Command) io.Writer {
	if quiet(cmd) {
		return io.Discard
	}
	return cmd.ErrOrStderr()
}

// startProgress shows the command's progress on stderr as --progress and --quiet say (--quiet
// turns it off unless --progress always is given), and returns the reporter the command feeds;
// nil (on which every method does nothing) when none is shown. The line is cleared when the
// command ends, before its result and its errors are printed.
func startProgress(cmd *cobra.Command) *progress.Reporter {
	r, ok := cmd.ErrOrStderr().(*progress.Reporter)
	if !ok {
		return nil
	}
	f := cmd.Flag("progress")
	if f == nil {
		return nil
	}
	mode, err := progress.ParseMode(f.Value.String())
	if err != nil || (quiet(cmd) && !f.Changed) || !mode.On(isTerminal(r)) {
		return nil
	}
	width := 0
	if file := r.File(); file != nil {
		width = terminalWidth(file)
	}
	o := progress.Options{Width: width}
	// How long the work runs before the line appears (1 s), and between redraws: set only by the
	// tests, which cannot rely on a command taking that long (0: every update is drawn).
	if d, err := time.ParseDuration(os.Getenv("OLMCAT_PROGRESS_DELAY")); err == nil {
		o.Delay, o.Interval = max(d, time.Nanosecond), max(d, time.Nanosecond)
	}
	r.Start(cmd.CommandPath(), o)
	return r
}

// countReads makes the catalogs o opens count the packages and bundles they read on r.
func countReads(o *source.Options, r *progress.Reporter) {
	if r == nil {
		return
	}
	o.Progress = func(packages, bundles int) {
		if packages > 0 {
			r.Add("package", packages)
		}
		if bundles > 0 {
			r.Add("bundle", bundles)
		}
	}
}

// activeProgress is the command's progress reporter once startProgress has started it, or nil.
func activeProgress(cmd *cobra.Command) *progress.Reporter {
	if r, ok := cmd.ErrOrStderr().(*progress.Reporter); ok && r.Active() {
		return r
	}
	return nil
}

// progressAlways says whether --progress always was given.
func progressAlways(cmd *cobra.Command) bool {
	f := cmd.Flag("progress")
	return f != nil && f.Value.String() == string(progress.Always)
}

// countedRenderer shows on the progress line the bundle images a template renders.
type countedRenderer struct {
	template.BundleRenderer
	p *progress.Reporter
}

func (r countedRenderer) RenderBundles(ctx context.Context, refs []string) ([]fbc.Bundle, error) {
	r.p.Set("bundle image", 0, len(refs))
	bundles, err := r.BundleRenderer.RenderBundles(ctx, refs)
	r.p.Set("bundle image", len(bundles), len(refs))
	return bundles, err
}

// expectPackages gives the progress line the number of packages src holds when that is known at
// once (an index.db), for the time left: call it after the phase that reads them all is named.
func expectPackages(cmd *cobra.Command, src *source.Source) {
	p := activeProgress(cmd)
	if p == nil || src.Format() != source.FormatSQLite || src.DB() == nil {
		return
	}
	if pkgs, err := src.DB().Packages(cmd.Context()); err == nil && len(pkgs) > 0 {
		p.Set("package", 0, len(pkgs))
	}
}
