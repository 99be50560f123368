package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

// The one check of every path a command reads and writes (issue 35 item 5), made before the
// command runs, so before anything is written: no output is, contains or lies inside a file or
// directory the command reads (the catalog arguments, --config, --bundles-from, TLS files, a
// plan, ...), and no two outputs share a path or lie one inside the other (OUT and
// --to-image docker-archive:OUT, --images and --report at one path), whatever --force says:
// --force replaces an old output, never an input, and one output never replaces another. The
// commands' own guards (source.CheckOutput) stay for what only they know (an input opened).

// inputFlagNames are the flags whose value is a file or directory the command reads, or a
// catalog reference (its local path is then the input).
var inputFlagNames = []string{"config", "bundles-from", "server-binary", "plan", "ca-file", "http-tls-cert", "http-tls-key",
	"labels", "database", "catalog", "diff", "base", "binary"}

// outputFlagNames are the flags whose value is a file or directory the command writes; --to-image
// only when it names a local image (oci-layout:DIR, docker-archive:FILE).
var outputFlagNames = []string{"cache-dir", "report", "images", "save-plan", "output-dir", "output-db", "oci-layout", "to-image", "termination-log"}

// outputArgs are the commands whose argument at this index is their output (OUT, OUTDIR); their
// other arguments, and every argument of the other commands, are inputs.
var outputArgs = map[string]int{"migrate": 1, "filter": 1, "unpack": 1}

// ioPath is one path a command reads or writes, and the flag that names it ("" for an argument)
// as written (shown: docker-archive:FILE for FILE).
type ioPath struct {
	flag, shown, path string
	cache             bool // --cache-dir: kept and added to, never replaced, so it may hold the others
}

// checkCommandPaths is the root command's PersistentPreRunE.
func checkCommandPaths(cmd *cobra.Command, args []string) error {
	var ins, outs []ioPath
	outArg, hasOutArg := outputArgs[cmd.Name()]
	inPlace := false
	if f := cmd.Flags().Lookup("in-place"); f != nil && f.Value.String() == "true" {
		inPlace = true // the catalog argument is meant to be replaced
	}
	for i, arg := range args {
		if hasOutArg && i == outArg {
			outs = append(outs, ioPath{shown: arg, path: arg})
			continue
		}
		if inPlace && i == 0 {
			continue
		}
		if p := catalogPath(arg); p != "" {
			if _, err := os.Lstat(p); err == nil { // an argument that is no path (a package name) is no input
				ins = append(ins, ioPath{shown: arg, path: p})
			}
		}
	}
	for _, name := range inputFlagNames {
		for _, v := range flagValues(cmd, name) {
			p := v
			if name == "bundles-from" || name == "catalog" || name == "diff" {
				p = catalogPath(v)
			}
			if name == "base" { // build's base image: its local layout or archive, if any
				p, _ = indeximage.LocalImagePath(v)
			}
			if name == "binary" { // generate base-image: PLATFORM=PATH
				_, p, _ = strings.Cut(v, "=")
			}
			if p != "" && p != "-" {
				ins = append(ins, ioPath{flag: "--" + name, shown: v, path: p})
			}
		}
	}
	for _, name := range outputFlagNames {
		if name == "termination-log" && !cmd.Flags().Changed(name) {
			continue // serve's default, /dev/termination-log, opened only where it can be
		}
		for _, v := range flagValues(cmd, name) {
			p := v
			if name == "to-image" {
				p, _ = indeximage.LocalImagePath(v)
			}
			if p != "" && p != "-" {
				outs = append(outs, ioPath{flag: "--" + name, shown: v, path: p, cache: name == "cache-dir"})
			}
		}
	}
	commandOutputs = outs
	return checkIOPaths(ins, outs)
}

// checkIOPaths refuses an output that overlaps an input, and two outputs that overlap.
// commandOutputs are the outputs of the command this process runs, as checkCommandPaths found
// them: what a template's local bundle image may not be (overlapsAnOutput), since that is only
// known once the template is read.
var commandOutputs []ioPath

// overlapsAnOutput says how path lies against an output of the command ("lies inside the output
// out"), or "" when it is apart from all of them.
func overlapsAnOutput(path string) string {
	for _, o := range commandOutputs {
		if special(o.path) {
			continue
		}
		if how := source.Overlap(path, o.path); how != "" && !(o.cache && how == "lies inside") {
			return how + " " + otherOutput(o)
		}
	}
	return ""
}

func checkIOPaths(ins, outs []ioPath) error {
	for i, o := range outs {
		if special(o.path) {
			continue // /dev/null, /dev/stdout, a FIFO: written in place, never replaced
		}
		for _, in := range ins {
			if special(in.path) {
				continue
			}
			how := source.Overlap(o.path, in.path)
			if how == "" || (o.cache && how == "contains") {
				continue
			}
			detail := fmt.Sprintf("it %s the input %s", how, in.shown)
			if in.flag != "" {
				detail += " (" + in.flag + ")"
			}
			return &source.Error{Ref: named(o), Problem: source.OutputIsInput, Detail: detail + "; nothing was written",
				Hint: "write the output elsewhere; --force never lets olmcat overwrite an input"}
		}
		for _, other := range outs[:i] {
			if special(other.path) {
				continue
			}
			how := source.Overlap(o.path, other.path)
			if how == "" || (o.cache && how == "contains") || (other.cache && how == "lies inside") {
				continue
			}
			return usageError{fmt.Errorf("%s: it %s %s, another output of the command; nothing was written (give each output its own path: one output never replaces another, whatever --force says)",
				named(o), how, otherOutput(other))}
		}
	}
	return nil
}

func otherOutput(p ioPath) string {
	if p.flag == "" {
		return "the output " + p.shown
	}
	return named(p)
}

func named(p ioPath) string {
	if p.flag == "" {
		return p.shown
	}
	return p.flag + " " + p.shown
}

// catalogPath is the local file or directory a catalog reference reads, "" for none (a registry
// image, standard input, a git revision).
func catalogPath(ref string) string {
	r, err := source.Parse(ref)
	if err != nil || r.Form == source.FormGit {
		return ""
	}
	return r.Path
}

// flagValues are the values of cmd's flag name, none when the command has no such flag or it is empty.
func flagValues(cmd *cobra.Command, name string) []string {
	f := cmd.Flags().Lookup(name)
	if f == nil {
		return nil
	}
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	if v := f.Value.String(); v != "" {
		return []string{v}
	}
	return nil
}

// special reports whether p is an existing file that is neither regular nor a directory: a device
// or a pipe, written in place.
func special(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}
