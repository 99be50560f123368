package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func init() { register(newHealthProbeCmd) }

// healthProbeName is the program OLM runs in a catalog pod to probe it:
// `grpc_health_probe -addr=:50051`. An olmcat image links that name to olmcat, which then behaves
// as the probe, so that an image holding only olmcat passes OLM's readiness and liveness probes.
const healthProbeName = "grpc_health_probe"

// Exit codes of grpc_health_probe.
const (
	probeServing     = 0
	probeInvalidArgs = 1
	probeConnFailure = 2
	probeRPCFailure  = 3
	probeNotServing  = 4
)

const healthProbeLong = `Check a gRPC server's health as grpc_health_probe does, with its flags and exit codes:
0 SERVING, 1 bad arguments, 2 connection failure, 3 RPC failure, 4 not SERVING.

OLM probes a catalog pod with 'grpc_health_probe -addr=:50051'. An olmcat server image provides
/bin/grpc_health_probe as a link to olmcat: called by that name, olmcat is the probe.

  olmcat health-probe -addr=localhost:50051`

func newHealthProbeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "health-probe -addr=HOST:PORT [-service NAME] [-connect-timeout D] [-rpc-timeout D] [-tls]",
		Short: "Probe a catalog server's gRPC health, as OLM's grpc_health_probe does",
		Long:  healthProbeLong,
		// grpc_health_probe's flags take one dash (-addr=:50051): they are parsed here, as it parses them.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if a == "-h" || a == "-help" || a == "--help" {
					return cmd.Help()
				}
			}
			if code := healthProbe(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	}
	var p probeFlags
	p.register(cmd.Flags()) // for --help and completion; parsing is healthProbe's
	return cmd
}

// probeFlags are grpc_health_probe's flags.
type probeFlags struct {
	addr, service, userAgent   string
	connectTimeout, rpcTimeout time.Duration
	useTLS, tlsNoVerify        bool
}

// flagSet is what register and the standard flag package both take.
type flagSet interface {
	StringVar(p *string, name, value, usage string)
	DurationVar(p *time.Duration, name string, value time.Duration, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
}

func (p *probeFlags) register(fs flagSet) {
	fs.StringVar(&p.addr, "addr", "", "address of the server (HOST:PORT, or :PORT for localhost)")
	fs.StringVar(&p.service, "service", "", "service name to check (empty: the server as a whole)")
	fs.DurationVar(&p.connectTimeout, "connect-timeout", time.Second, "timeout for establishing the connection")
	fs.DurationVar(&p.rpcTimeout, "rpc-timeout", time.Second, "timeout for the health check call")
	fs.BoolVar(&p.useTLS, "tls", false, "use TLS")
	fs.BoolVar(&p.tlsNoVerify, "tls-no-verify", false, "with -tls, do not verify the server certificate")
	fs.StringVar(&p.userAgent, "user-agent", "grpc_health_probe", "user-agent header value")
}

// healthProbe runs grpc_health_probe's check with its flags and returns its exit code.
func healthProbe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(healthProbeName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var p probeFlags
	p.register(fs)
	if err := fs.Parse(args); err != nil {
		return probeInvalidArgs
	}
	addr, service, userAgent := &p.addr, &p.service, &p.userAgent
	connectTimeout, rpcTimeout, useTLS, tlsNoVerify := &p.connectTimeout, &p.rpcTimeout, &p.useTLS, &p.tlsNoVerify
	if *addr == "" {
		fmt.Fprintln(stderr, "error: -addr is required")
		return probeInvalidArgs
	}
	target := *addr
	if target[0] == ':' {
		target = "localhost" + target
	}
	creds := insecure.NewCredentials()
	if *useTLS {
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: *tlsNoVerify}) //nolint:gosec // -tls-no-verify asked for it
	}
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds), grpc.WithUserAgent(*userAgent))
	if err != nil {
		fmt.Fprintf(stderr, "error: %s: %v\n", *addr, err)
		return probeInvalidArgs
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *connectTimeout)
	defer cancel()
	conn.Connect()
	for s := conn.GetState(); s.String() != "READY"; s = conn.GetState() {
		if !conn.WaitForStateChange(ctx, s) {
			fmt.Fprintf(stderr, "timeout: failed to connect service %q within %v\n", *addr, *connectTimeout)
			return probeConnFailure
		}
	}
	rctx, rcancel := context.WithTimeout(context.Background(), *rpcTimeout)
	defer rcancel()
	resp, err := healthpb.NewHealthClient(conn).Check(rctx, &healthpb.HealthCheckRequest{Service: *service})
	if err != nil {
		fmt.Fprintf(stderr, "error: health rpc failed: %v\n", err)
		return probeRPCFailure
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		fmt.Fprintf(stderr, "service unhealthy (responded with %q)\n", resp.GetStatus())
		return probeNotServing
	}
	fmt.Fprintf(stdout, "status: %v\n", resp.GetStatus())
	return probeServing
}
