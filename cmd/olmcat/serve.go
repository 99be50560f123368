package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/grpccompat/serve"
)

func init() { register(newServeCmd) }

const serveLong = `Serve a catalog over OLM's gRPC api.Registry API, answering as opm does:
an index.db (recognized by its SQLite header) is answered straight from SQL the way
'opm registry serve' (v1.72) answers; a File-Based Catalog (directory or file) the way 'opm serve'
answers, with api.ExperimentalRegistry too. Also served: grpc.health.v1.Health (services "" and
"Registry" report NOT_SERVING until the catalog is loaded, then SERVING) and server reflection
(v1 and v1alpha).

A catalog that fails validation is refused at start: every problem is reported, the report goes
to the termination log, and the exit code is 1.

Cache (FBC): the catalog is read once into an index and a store of bundle bodies. --cache-dir keeps
them; the next start reuses them if the catalog is unchanged (content digest), and rebuilds them
otherwise (a stale cache in a read-only directory is an error, never served). Build the cache at
image build time with --cache-only, e.g.
  RUN olmcat serve /configs --cache-dir /tmp/cache --cache-only
  CMD ["serve", "/configs", "--cache-dir", "/tmp/cache"]
Serving from a cache writes nothing, so it works on a read-only filesystem and as any user.

SIGTERM, SIGINT and SIGHUP stop accepting calls and let in-flight calls finish (--drain-timeout),
then remove the temporary cache and exit 0.

` + referenceHelp

func newServeCmd() *cobra.Command {
	var (
		port, termLog, cacheDir, pprofAddr string
		cacheOnly, debug                   bool
		drain                              time.Duration
		in                                 inputFlags
	)
	cmd := &cobra.Command{
		Use:   "serve CATALOG",
		Short: "Serve an FBC or an index.db over OLM's gRPC registry API, wire-compatible with opm",
		Long:  serveLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelInfo
			if debug {
				level = slog.LevelDebug
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			termination := openTerminationLog(termLog, log)
			if termination != nil {
				defer termination.Close()
			}
			err := serve.Run(cmd.Context(), serve.Options{
				Path: args[0], Source: in.options(cmd), Addr: serve.ListenAddr(port), CacheDir: cacheDir,
				CacheOnly: cacheOnly, PprofAddr: pprofAddr, DrainTimeout: drain, Logger: log,
			})
			if err != nil && termination != nil {
				fmt.Fprintln(termination, err)
			}
			var listen *serve.ListenError
			if errors.As(err, &listen) {
				return usageError{err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&port, "port", "p", "50051", "port to listen on (all interfaces), or host:port")
	f.StringVarP(&termLog, "termination-log", "t", "/dev/termination-log", "file the start-up failure is written to (Kubernetes termination message); failing to open it only warns")
	f.StringVar(&cacheDir, "cache-dir", "", "FBC: keep the catalog index and bundle bodies here and reuse them while the catalog is unchanged")
	f.BoolVar(&cacheOnly, "cache-only", false, "build (or verify) the cache and exit without serving")
	f.StringVar(&pprofAddr, "pprof-addr", "", "serve Go pprof profiles on this address (e.g. localhost:6060); off by default")
	f.BoolVar(&debug, "debug", false, "log at debug level, including one record per call")
	f.DurationVar(&drain, "drain-timeout", 30*time.Second, "on SIGTERM/SIGINT, how long in-flight calls may run before they are cut")
	addInputFlags(f, &in)
	return cmd
}

// openTerminationLog opens the termination message file; a failure only warns, as in opm.
func openTerminationLog(path string, log *slog.Logger) *os.File {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		log.Warn("cannot open the termination log; start-up failures go to stderr only", "path", path, "error", err)
		return nil
	}
	return f
}
