package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
)

func init() { register(newPushCmd) }

const pushLong = `Push an image from an OCI layout directory or a docker archive to a registry, as crane push or
skopeo copy would, without a container daemon:

  olmcat push oci-layout:DIR[:TAG|@DIGEST] REGISTRY/REPO[:TAG|@DIGEST]
  olmcat push docker-archive:FILE[:REPO:TAG] REGISTRY/REPO[:TAG]

An entry of the layout that is an image index is pushed whole: every platform's manifest, nested
indexes and every blob, under the index's own digest. A layout holding several entries needs :TAG or
@DIGEST (the error lists them); a docker archive gives its one image (or FILE:REPO:TAG of several).
Every manifest and config is checked against the digest that names it before anything is sent, and
each layer as it streams; blobs the registry already has are not sent again.

The pushed digest is printed on stdout as REGISTRY/REPO@sha256:..., a reference that pulls exactly
what was pushed; a one-line summary goes to stderr. Credentials come from the docker/podman config
and credential helpers ($DOCKER_CONFIG, $REGISTRY_AUTH_FILE); --insecure allows plain HTTP and
unverified TLS (localhost and loopback registries always allow HTTP). Docker Hub's short names
need docker://NAME. A source that cannot be read, a destination that is not a registry reference
and a registry that cannot be reached or refuses the push are exit 2.`

func newPushCmd() *cobra.Command {
	var opts indeximage.Options
	cmd := &cobra.Command{
		Use:   "push SOURCE REF",
		Short: "Push an image or multi-arch index from an OCI layout or docker archive to a registry",
		Long:  pushLong,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPush(cmd, args[0], args[1], opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Insecure, "insecure", false, "allow plain HTTP and unverified TLS for the registry (localhost and loopback registries always allow HTTP)")
	addRegistryFlags(f, &opts)
	return cmd
}

func runPush(cmd *cobra.Command, src, dest string, opts indeximage.Options) error {
	ref, err := source.Parse(src)
	if err != nil {
		return err
	}
	if ref.Form != source.FormOCILayout && ref.Form != source.FormDockerArchive {
		return &source.Error{Ref: src, Problem: source.NotHere, Detail: "push reads a local image, not a " + string(ref.Form),
			Hint: "give oci-layout:DIR[:TAG|@DIGEST] or docker-archive:FILE; to copy between registries use skopeo copy or crane copy"}
	}
	to, err := indeximage.ParsePushDestination(dest, opts)
	if err != nil {
		return usageError{err}
	}
	s, err := indeximage.OpenPushSource(src)
	if err != nil {
		return &source.Error{Ref: src, Problem: source.BadImage, Detail: strings.TrimPrefix(err.Error(), src+": "), Err: err}
	}
	defer s.Close()
	// Progress on a terminal only: the percentage sent, on one line cleared at the end.
	var progress func(sent, total int64)
	shown := int64(-1)
	if isTerminal(cmd.ErrOrStderr()) {
		progress = func(sent, total int64) {
			if pct := sent * 100 / max(total, 1); pct != shown {
				shown = pct
				fmt.Fprintf(cmd.ErrOrStderr(), "\rolmcat: pushing %s: %s of %s\x1b[K", src, indeximage.FormatSize(sent), indeximage.FormatSize(total))
			}
		}
	}
	pushed, err := s.Push(cmd.Context(), to, opts, progress)
	if shown >= 0 {
		fmt.Fprint(cmd.ErrOrStderr(), "\r\x1b[K")
	}
	if err != nil {
		return outputError{err}
	}
	fmt.Fprintln(cmd.OutOrStdout(), pushed.String())
	fmt.Fprintf(summaryOut(cmd), "olmcat: pushed %s to %s: %s, %s, %s, %s\n", src, to, s.Kind,
		plural.Of(s.Manifests, "manifest"), plural.Of(s.Blobs, "blob"), indeximage.FormatSize(s.Bytes))
	return nil
}
