package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/grpccompat/serve"
	"github.com/olmcat/olmcat/internal/progress"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newServeCmd) }

const serveLong = `Serve a catalog over OLM's gRPC api.Registry API, answering as opm does:
an index.db (recognized by its SQLite header) is answered straight from SQL the way
'opm registry serve' (v1.72) answers; a File-Based Catalog (directory or file) the way 'opm serve'
answers, with api.ExperimentalRegistry too. Also served: grpc.health.v1.Health (services "" and
"Registry" report NOT_SERVING until the catalog is loaded, then SERVING) and server reflection
(v1 and v1alpha). The port opens before the catalog is loaded: a call made meanwhile waits for it,
up to the call's deadline (opm does not listen until it has loaded the catalog).

A catalog that fails validation is refused at start: every problem is reported, the report goes
to the termination log, and the exit code is 1.

Cache (FBC): the catalog is read once into an index and a store of bundle bodies. --cache-dir keeps
them; the next start reuses them if the catalog is unchanged (content digest) and the cache is
whole (its own digest). As in opm, serving with --cache-dir requires that cache
(--cache-enforce-integrity, default true there): a missing, stale or damaged cache is an error,
never served; with --cache-enforce-integrity=false it is rebuilt instead. Build the cache at image
build time with --cache-only, e.g.
  RUN olmcat serve /configs --cache-dir /tmp/cache --cache-only
  CMD ["serve", "/configs", "--cache-dir", "/tmp/cache"]
Serving from a cache writes nothing, so it works on a read-only filesystem and as any user.
Nothing under --cache-dir is followed: a link, FIFO or device where a cache file belongs makes the
cache damaged, never read (the rebuild removes the link, not what it names).

OLM v1 (catalogd's HTTP API): --http-addr also serves the catalog as catalogd does, from the same
loaded snapshot: /api/v1/all (every blob, one JSON line each) and /api/v1/metas?schema=&package=&name=
(the matching blobs), also under /catalogs/NAME/api/v1/... as a ClusterCatalog's URL has them, and
/healthz, /readyz and /livez. An index.db is served there as 'olmcat render' converts it. gRPC does not
wait for the HTTP API: where the HTTP API must read the catalog itself (an index.db, a --cache-dir),
gRPC serves first and the HTTP API answers 503 until it is ready.
--grpc=false serves HTTP alone. --http-tls-cert and --http-tls-key serve HTTPS instead, as catalogd
does with --tls-cert and --tls-key (also on --metrics-addr); a renewed certificate (cert-manager, a
Kubernetes secret volume) is picked up at the next TLS handshake, without a restart. Both may be
links, but only regular files of at most 1 MiB are read (never a FIFO or a device).
The answers are catalogd's byte for byte (blobs re-encoded as catalogd stores them, zstd or gzip);
/api/v1/metas is on unless --http-metas=false (catalogd: off unless its alpha APIV1MetasHandler
feature gate is on).
  olmcat serve ./catalog --http-addr :8080 --grpc=false
  curl -s 'localhost:8080/api/v1/metas?schema=olm.package'

Metrics and logs: --metrics-addr serves Prometheus metrics at /metrics (also at /metrics on
--http-addr): per-method gRPC and per-route HTTP requests, latencies and calls in flight, bytes sent,
catalog load time, packages and bundles, cache hits and rebuilds, build info. Logs are opm's text
format (time="..." level=info msg="..." key=value), or JSON with --log-format json.

Flags are opm serve's (v1.73), with the same meaning; --pprof-addr is off unless given (opm
listens on localhost:6060 by default). --metrics-addr, --log-format and the --http-* flags are
olmcat's.

Limits (opm has none): each listener holds at most its share of the file descriptor limit (raised
to the hard limit at start), evicting the oldest connection that has sent nothing for a new one;
a gRPC connection must complete its handshake within 10 s. A stream whose client reads nothing
gives its call slot back after 10 s and is ended after 30 s. While every call slot is taken, health
answers NOT_SERVING and /readyz 503. See olmcat_connections_* and olmcat_grpc_stalled_streams_total.

SIGTERM, SIGINT and SIGHUP stop accepting calls and let in-flight calls finish (--drain-timeout),
then remove the temporary cache and exit 0.

` + referenceHelp

// serverFlags are the flags `olmcat serve` and `olmcat registry serve` share with opm's two servers.
type serverFlags struct {
	port, termLog, pprofAddr string
	metricsAddr, logFormat   string
	debug, captureProfiles   bool
	drain                    time.Duration
	in                       inputFlags
}

func addServerFlags(f *pflag.FlagSet, s *serverFlags) {
	f.StringVarP(&s.port, "port", "p", "50051", "port to listen on (all interfaces), or host:port")
	f.StringVarP(&s.termLog, "termination-log", "t", "/dev/termination-log", "file the start-up failure is written to (Kubernetes termination message); failing to open it only warns")
	f.StringVar(&s.pprofAddr, "pprof-addr", "", "serve Go pprof profiles on this address (e.g. localhost:6060); off by default (opm: on at localhost:6060)")
	f.BoolVar(&s.captureProfiles, "pprof-capture-profiles", false, "with --pprof-addr: record a CPU profile of the start-up, served at /debug/pprof/startup/cpu")
	f.BoolVar(&s.debug, "debug", false, "log at debug level, including one record per call")
	f.StringVar(&s.logFormat, "log-format", "text", "log format: text (opm's: time=\"...\" level=info msg=\"...\" key=value) or json (one object a line)")
	f.StringVar(&s.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics on this address (e.g. :9090); with --http-addr they are also at /metrics there")
	f.DurationVar(&s.drain, "drain-timeout", 30*time.Second, "on SIGTERM/SIGINT/SIGHUP, how long in-flight calls may run before they are cut")
	addInputFlags(f, &s.in)
	addMigrateLevelFlag(f, &s.in.migrateLevel)
}

// run serves ref as the flags say; o holds what the command adds (cache settings).
func (s serverFlags) run(cmd *cobra.Command, ref string, o serve.Options, ignored []string) error {
	level := slog.LevelInfo
	if s.debug {
		level = slog.LevelDebug
	}
	log, err := serve.NewLogger(cmd.ErrOrStderr(), s.logFormat, level)
	if err != nil {
		return usageError{fmt.Errorf("--log-format: %w", err)}
	}
	for _, msg := range ignored {
		log.Info(msg)
	}
	termination := openTerminationLog(s.termLog, ref, log)
	if termination != nil {
		defer termination.Close()
	}
	loading := startProgress(cmd)
	loading.Phase("loading")
	servingWhenReady(loading, &o)
	o.Path, o.Source, o.Addr, o.PprofAddr = ref, s.in.options(cmd), serve.ListenAddr(s.port), s.pprofAddr
	o.CaptureStartupProfile, o.DrainTimeout, o.Logger = s.captureProfiles, s.drain, log
	if s.metricsAddr != "" {
		o.MetricsAddr = serve.ListenAddr(s.metricsAddr)
	}
	v := buildVersion()
	o.Version, o.Revision = v.Version, v.Revision
	err = serve.Run(cmd.Context(), o)
	if err != nil && termination != nil {
		fmt.Fprintln(termination, err)
	}
	var (
		listen *serve.ListenError
		tlsErr *serve.TLSError
	)
	if errors.As(err, &listen) || errors.As(err, &tlsErr) {
		return usageError{err}
	}
	return err
}

func newServeCmd() *cobra.Command {
	var (
		s                      serverFlags
		cacheOnly, enforceFlag bool
		httpAddr, catalogName  string
		tlsCert, tlsKey        string
		grpcOn, metas          bool
	)
	cmd := &cobra.Command{
		Use:   "serve CATALOG",
		Short: "Serve an FBC or an index.db over OLM's gRPC registry API, wire-compatible with opm",
		Long:  serveLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := bundleDirNotCatalog(args[0]); err != nil {
				return err
			}
			cacheDir := s.in.templates.cacheDir
			// opm's default: a pre-built cache is required when serving with --cache-dir.
			enforce := cacheDir != "" && !cacheOnly
			if cmd.Flags().Changed("cache-enforce-integrity") {
				enforce = enforceFlag
			}
			if enforce && cacheDir == "" {
				return usageError{errors.New("--cache-dir must be specified with --cache-enforce-integrity")}
			}
			var ignored []string
			if s.captureProfiles && s.pprofAddr == "" {
				ignored = append(ignored, "--pprof-capture-profiles has no effect without --pprof-addr")
			}
			if !grpcOn && httpAddr == "" {
				return usageError{errors.New("--grpc=false serves nothing without --http-addr")}
			}
			if cacheOnly && httpAddr != "" {
				ignored = append(ignored, "--http-addr has no effect with --cache-only")
			}
			if err := httpapi.CheckCatalogName(catalogName); catalogName != "" && err != nil {
				return usageError{fmt.Errorf("--http-catalog-name: %w", err)}
			}
			if (tlsCert == "") != (tlsKey == "") {
				return usageError{errors.New("--http-tls-cert and --http-tls-key go together: give both or neither")}
			}
			if tlsCert != "" && httpAddr == "" && s.metricsAddr == "" && !cacheOnly {
				ignored = append(ignored, "--http-tls-cert and --http-tls-key have no effect without --http-addr or --metrics-addr")
			}
			if httpAddr != "" {
				httpAddr = serve.ListenAddr(httpAddr)
			}
			return s.run(cmd, args[0], serve.Options{
				CacheDir: cacheDir, CacheOnly: cacheOnly, EnforceIntegrity: enforce,
				HTTPAddr: httpAddr, HTTPOnly: !grpcOn, HTTPCatalogName: catalogName, HTTPNoMetas: !metas,
				HTTPTLSCert: tlsCert, HTTPTLSKey: tlsKey,
			}, ignored)
		},
	}
	f := cmd.Flags()
	addServerFlags(f, &s)
	f.Lookup("cache-dir").Usage = "keep the catalog index and bundle bodies here (FBC) and reuse them while the catalog is unchanged; also the bundle images pulled to render a catalog template (DIR/bundles)"
	f.BoolVar(&cacheOnly, "cache-only", false, "build (or verify) the cache and exit without serving")
	f.StringVar(&httpAddr, "http-addr", "", "also serve catalogd's HTTP API (OLM v1) on this port or host:port, e.g. :8080")
	f.BoolVar(&grpcOn, "grpc", true, "serve the gRPC registry API on --port; --grpc=false with --http-addr serves HTTP only")
	f.BoolVar(&metas, "http-metas", true, "with --http-addr: serve /api/v1/metas (catalogd serves it only with its alpha APIV1MetasHandler feature gate, off by default)")
	f.StringVar(&tlsCert, "http-tls-cert", "", "with --http-addr: serve HTTPS with this PEM certificate (chain), read again when the file changes; also on --metrics-addr (catalogd's --tls-cert)")
	f.StringVar(&tlsKey, "http-tls-key", "", "the PEM private key of --http-tls-cert (catalogd's --tls-key)")
	f.StringVar(&catalogName, "http-catalog-name", "", "with --http-addr: the NAME answered under /catalogs/NAME/api/v1/... (default: any valid name)")
	f.BoolVar(&enforceFlag, "cache-enforce-integrity", false, "fail instead of building the cache when it is missing or does not match the catalog (default: true with --cache-dir unless --cache-only, as in opm)")
	return cmd
}

// servingWhenReady ends the progress line of the catalog's load once every API o serves is ready.
func servingWhenReady(p *progress.Reporter, o *serve.Options) {
	if p == nil || o.CacheOnly {
		return
	}
	var waiting atomic.Int32
	ready := func(net.Addr) {
		if waiting.Add(-1) == 0 {
			p.Close()
		}
	}
	if !o.HTTPOnly {
		waiting.Add(1)
		o.Ready = ready
	}
	if o.HTTPAddr != "" {
		waiting.Add(1)
		o.HTTPReady = ready
	}
}

// openTerminationLog opens the termination message file; a failure only warns, as in opm. A file
// that is, or lies inside, the catalog ref is not opened: it would truncate the input.
func openTerminationLog(path, ref string, log *slog.Logger) *os.File {
	if path == "" {
		return nil
	}
	if err := source.CheckOutputPaths(path, ref); err != nil {
		log.Warn("the termination log would overwrite the catalog; start-up failures go to stderr only", "path", path, "error", err)
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		log.Warn("cannot open the termination log; start-up failures go to stderr only", "path", path, "error", err)
		return nil
	}
	return f
}
