// Command olmcat converts, validates, diffs and serves OLM catalogs (File-Based Catalogs and legacy
// SQLite index databases). Each subcommand lives in its own file and registers itself; the work is
// done by the library packages.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/progress"
	"github.com/olmcat/olmcat/internal/scratch"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
)

var subcommands []func() *cobra.Command

// register adds a subcommand constructor; called from init() in each command's file.
func register(newCmd func() *cobra.Command) { subcommands = append(subcommands, newCmd) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "olmcat",
		Short:         "Convert, validate, diff and serve OLM catalogs (FBC and SQLite index.db)",
		Version:       buildVersion().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	addProgressFlags(root.PersistentFlags())
	// The one check every command runs before it starts: its flags' values, then that no output of it is
	// an input or another output (iopaths.go). A subcommand must not set its own PersistentPreRunE: cobra
	// would run that one instead of this.
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := checkProgressFlags(cmd); err != nil {
			return err
		}
		return checkCommandPaths(cmd, args)
	}
	root.SetFlagErrorFunc(flagError)
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd())
	}
	root.InitDefaultCompletionCmd() // cobra adds it on Execute; here it is also in the tree for help and tests
	addVerbNounSpellings(root)
	applyUsageRules(root)
	return root
}

func main() {
	if filepath.Base(os.Args[0]) == healthProbeName {
		os.Exit(healthProbe(os.Args[1:], os.Stdout, os.Stderr))
	}
	ctx, received, stop := handleSignals()
	// What olmcat processes killed with SIGKILL left in TMPDIR (spool files, temporary caches):
	// only entries no live process holds locked.
	scratch.RemoveStale(os.TempDir(), scratch.StalePrefixes...)
	stopProfile := startProfile(os.Stderr)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopProfile()
	stop()
	scratch.RemoveAll() // whatever a failed command could not remove itself
	if sig := received(); sig != 0 && code != exitOK && sig != syscall.SIGPIPE {
		code = 128 + int(sig) // as a shell reports a process ended by the signal
	}
	os.Exit(code)
}

// handleSignals cancels the context on SIGINT, SIGTERM, SIGHUP and SIGPIPE (when it is standard
// output or standard error that broke, not a server's client connection), so that commands stop,
// remove their temporary files and exit; a second SIGINT or SIGTERM exits at once, after removing
// the temporary files every command registers with package scratch. SIGPIPE (a closed pipe on
// stdout, e.g. `olmcat render ... | head`) then shows as a write error, which ends the command
// quietly.
func handleSignals() (ctx context.Context, received func() syscall.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	done := make(chan struct{})
	var first atomic.Int32
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				sig := s.(syscall.Signal)
				if sig == syscall.SIGPIPE {
					// Only a reader of our own output going away stops the command; a client
					// of `olmcat serve` that hangs up raises SIGPIPE too.
					if outputGone() {
						cancel()
					}
					continue
				}
				if !first.CompareAndSwap(0, int32(sig)) {
					scratch.RemoveAll()
					os.Exit(128 + int(sig))
				}
				cancel()
			}
		}
	}()
	return ctx, func() syscall.Signal { return syscall.Signal(first.Load()) }, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// run is execute without signals and with no standard input, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	return execute(context.Background(), args, os.Stdin, stdout, stderr)
}

func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	out := &checkedWriter{w: stdout}
	// Standard error carries the progress line of long commands; it is cleared before the
	// command's outcome is printed below.
	progressLine := progress.New(stderr)
	defer func() {
		progressLine.Close()
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "olmcat: internal error: %v (this is a bug in olmcat; please report it with the command line)\n", p)
			code = exitUsage
		}
	}()
	if _, err := indeximage.LimitsFromEnv(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "olmcat: %v\n", err)
		return exitUsage
	}
	if v := strings.TrimSpace(os.Getenv(fbc.EnvMaxBlobBytes)); v != "" {
		if _, err := indeximage.ParseSize(v); err != nil {
			fmt.Fprintf(stderr, "olmcat: %s=%q: %v\n", fbc.EnvMaxBlobBytes, v, err)
			return exitUsage
		}
	}
	if err := checkEnvAllowedRegistries(); err != nil {
		fmt.Fprintf(stderr, "olmcat: %v\n", err)
		return exitUsage
	}
	root := newRootCmd()
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(progressLine)
	root.SetArgs(args)
	ctx, runExitFuncs := withExitFuncs(ctx)
	defer runExitFuncs()
	err := root.ExecuteContext(ctx)
	progressLine.Close()
	if out.err != nil {
		// Whatever else went wrong, the output is incomplete.
		if errors.Is(out.err, syscall.EPIPE) {
			return exitBrokenPipe // the reader went away (| head): nothing to say
		}
		fmt.Fprintf(stderr, "olmcat: %s\n", textsafe.TerminalLines(out.err.Error()))
		return exitUsage
	}
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "olmcat: stopped by a signal; nothing was written")
		return exitUsage
	}
	var exit exitError
	if errors.As(err, &exit) && exit.err == nil {
		return exit.code
	}
	// An error may quote catalog text (a name, a parse error's excerpt): its control characters
	// are escaped, the line breaks of olmcat's own multi-line messages stay.
	fmt.Fprintf(stderr, "olmcat: %s\n", textsafe.TerminalLines(err.Error()))
	return exitCode(err)
}

// checkedWriter remembers the first write error on standard output (a full disk, a closed pipe),
// so that a command that wrote all its output but lost some of it does not exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

// File is the file written to, when it is one: what decides whether the output is a terminal.
func (c *checkedWriter) File() *os.File {
	f, _ := c.w.(*os.File)
	return f
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = fmt.Errorf("write standard output: %w", err)
	}
	return n, err
}

// startProfile writes a CPU profile to $OLMCAT_CPUPROFILE and a heap profile to $OLMCAT_MEMPROFILE
// (for `go tool pprof`), when set: how olmcat's own figures are measured. Both are kept in memory
// and written at the end, once the inputs are known: a profile never overwrites an input.
func startProfile(stderr io.Writer) (stop func()) {
	cpu, mem := os.Getenv("OLMCAT_CPUPROFILE"), os.Getenv("OLMCAT_MEMPROFILE")
	var cpuProfile *bytes.Buffer
	if cpu != "" {
		cpuProfile = new(bytes.Buffer)
		if err := pprof.StartCPUProfile(cpuProfile); err != nil {
			fmt.Fprintf(stderr, "olmcat: warning: OLMCAT_CPUPROFILE: %v\n", err)
			cpuProfile = nil
		}
	}
	return func() {
		if cpuProfile != nil {
			pprof.StopCPUProfile()
			writeProfile(stderr, "OLMCAT_CPUPROFILE", cpu, cpuProfile.Bytes())
		}
		if mem != "" {
			var heap bytes.Buffer
			if err := pprof.Lookup("allocs").WriteTo(&heap, 0); err == nil {
				writeProfile(stderr, "OLMCAT_MEMPROFILE", mem, heap.Bytes())
			}
		}
	}
}

func writeProfile(stderr io.Writer, env, path string, data []byte) {
	err := source.CheckOutputPaths(path, source.OpenedInputs()...)
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "olmcat: warning: %s: %v\n", env, err)
	}
}
