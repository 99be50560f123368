package main

import (
	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/grpccompat/serve"
)

func init() { register(newRegistryCmd) }

const registryServeLong = `Serve an index.db over OLM's gRPC registry API, as 'opm registry serve' (v1.72) does: the same
flags with the same meaning, so that an index image's entrypoint can run olmcat in opm's place:

  olmcat registry serve --database /database/index.db -p 50051 -t /dev/termination-log

It is 'olmcat serve DATABASE' (see its help). The database is opened read-only and never migrated:
opm migrated a copy of it to the latest schema at start, which olmcat does in memory, so
--skip-migrate changes nothing; --timeout-seconds did nothing in opm either. Both are accepted and
noted in the log. A --database that does not exist is an error (opm created an empty database and
served nothing).`

func newRegistryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "opm's registry commands for index.db images (serve)",
	}
	var (
		s           serverFlags
		database    string
		skipMigrate bool
		timeout     string
	)
	serveCmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve an index.db over gRPC with opm registry serve's flags",
		Long:  registryServeLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ignored []string
			if skipMigrate {
				ignored = append(ignored, "--skip-migrate has no effect: olmcat never migrates the database file")
			}
			if cmd.Flags().Changed("timeout-seconds") {
				ignored = append(ignored, "--timeout-seconds has no effect (it had none in opm either)")
			}
			return s.run(cmd, database, serve.Options{}, ignored)
		},
	}
	f := serveCmd.Flags()
	addServerFlags(f, &s)
	f.StringVarP(&database, "database", "d", "bundles.db", "the index.db to serve")
	f.BoolVar(&skipMigrate, "skip-migrate", false, "accepted for opm compatibility; olmcat never migrates the database file")
	f.StringVar(&timeout, "timeout-seconds", "infinite", "accepted for opm compatibility; no effect")
	// The flags serve has for catalog templates and image references mean nothing for an index.db:
	// accepted (a shared entrypoint may pass them), not listed.
	for _, name := range indexDBIrrelevantFlags {
		if fl := f.Lookup(name); fl != nil {
			fl.Hidden = true
		}
	}
	cmd.AddCommand(serveCmd)
	return cmd
}

// indexDBIrrelevantFlags are serve's flags that only catalog templates and images use.
var indexDBIrrelevantFlags = []string{
	"allow-local-images", "allow-registry", "bundles-from", "cache-dir", "cache-max-age", "insecure",
	"platform", "pull-parallelism", "registry-timeout", "skip-tls-verify", "use-http",
}
