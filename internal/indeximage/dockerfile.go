package indeximage

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultBinaryImage is the base image of generated Dockerfiles, as in `opm generate dockerfile`.
const DefaultBinaryImage = "quay.io/operator-framework/opm:latest"

// DockerfileOptions describe the index Dockerfile to generate.
type DockerfileOptions struct {
	// BaseImage must contain /bin/opm with a serve subcommand; "" means DefaultBinaryImage.
	BaseImage string
	// IndexDir is the catalog directory, relative to the build context (the Dockerfile's
	// directory): usually the base name of the catalog directory.
	IndexDir string
	// ExtraLabels are added after the configs label, sorted by key.
	ExtraLabels map[string]string
	// Olmcat builds on an olmcat image (DefaultServerImage unless BaseImage): olmcat serves the
	// catalog and stands in for grpc_health_probe.
	Olmcat bool
	// BuilderImage is the image the serve cache is built in ("" means BaseImage). When it is
	// not the base image, the Dockerfile has opm v1.72's two stages: the builder ADDs the catalog
	// and builds the cache, the base stage copies both. A base image "scratch" gets no
	// ENTRYPOINT, CMD or RUN (it has no binary): OLM serves it with its own opm
	// (grpcPodConfig.extractContent).
	BuilderImage string
}

// Scratch is the empty base image of binary-less catalog images.
const Scratch = "scratch"

// writeTwoStageDockerfile writes opm v1.72's generate-dockerfile layout: a builder stage that
// pre-builds the serve cache, then the base stage with the catalog and the cache copied in.
func writeTwoStageDockerfile(b *bufio.Writer, opts DockerfileOptions, builder, base, dir string) error {
	bin := "/bin/opm"
	if opts.Olmcat {
		bin = "/bin/olmcat"
	}
	fmt.Fprintf(b, `# The builder image is expected to contain
# %s (with serve subcommand)
FROM %s as builder

# Copy FBC root into image at /configs and pre-populate serve cache
ADD %s /configs
RUN ["%s", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

FROM %s
`, bin, builder, dir, bin, base)
	if base != Scratch {
		probe := "/bin/grpc_health_probe"
		if opts.Olmcat {
			probe = "/bin/grpc_health_probe linked to it"
		}
		fmt.Fprintf(b, `# The base image is expected to contain
# %s (with serve subcommand) and %s

# Configure the entrypoint and command
ENTRYPOINT ["%s"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]
EXPOSE 50051
`, bin, probe, bin)
	} else {
		b.WriteString(`# OLMv0 CatalogSources that use binary-less images must set:
# spec:
#   grpcPodConfig:
#     extractContent:
#       catalogDir: /configs
#       cacheDir: /tmp/cache
`)
	}
	fmt.Fprintf(b, `
COPY --from=builder /configs /configs
COPY --from=builder /tmp/cache /tmp/cache

# Set FBC-specific label for the location of the FBC root directory
# in the image
LABEL %s=/configs
`, ConfigsLabel)
	return writeExtraLabels(b, opts.ExtraLabels)
}

// WriteDockerfile writes the Dockerfile `opm generate dockerfile` writes: FROM the opm image,
// serve /configs with a cache in /tmp/cache, ADD the catalog to /configs, pre-build the cache,
// the configs label, and the extra labels; plus EXPOSE 50051 for the gRPC port.
func WriteDockerfile(w io.Writer, opts DockerfileOptions) error {
	base := strings.TrimSpace(opts.BaseImage)
	if base == "" {
		base = DefaultBinaryImage
		if opts.Olmcat {
			base = DefaultServerImage
		}
	}
	if strings.ContainsAny(base, " \t\r\n") {
		return fmt.Errorf("base image %q contains white space", opts.BaseImage)
	}
	dir := filepath.ToSlash(strings.TrimSpace(opts.IndexDir))
	if dir == "" || strings.ContainsAny(dir, " \t\r\n") {
		return fmt.Errorf("catalog directory %q must be a non-empty path without white space (Dockerfile ADD)", opts.IndexDir)
	}
	builder := strings.TrimSpace(opts.BuilderImage)
	switch {
	case builder != "":
	case base != Scratch:
		builder = base
	case opts.Olmcat:
		builder = DefaultServerImage
	default:
		builder = DefaultBinaryImage
	}
	if strings.ContainsAny(builder, " \t\r\n") {
		return fmt.Errorf("builder image %q contains white space", opts.BuilderImage)
	}
	if builder == Scratch {
		return fmt.Errorf("invalid builder image %q: the builder stage runs the server to build its cache, so it needs an image holding the server binary", builder)
	}
	b := bufio.NewWriter(w)
	if builder != base {
		return writeTwoStageDockerfile(b, opts, builder, base, dir)
	}
	if opts.Olmcat {
		fmt.Fprintf(b, `# The base image is expected to contain /bin/olmcat, and /bin/grpc_health_probe linked to it
# (the probe OLM runs in catalog pods); see cmd/olmcat/Dockerfile in olmcat's repository.
FROM %s

# Configure the entrypoint and command
ENTRYPOINT ["/bin/olmcat"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]
EXPOSE 50051

# Copy declarative config root into image at /configs and pre-populate serve cache
ADD %s /configs
RUN ["/bin/olmcat", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

# Set DC-specific label for the location of the DC root directory
# in the image
LABEL %s=/configs
`, base, dir, ConfigsLabel)
		return writeExtraLabels(b, opts.ExtraLabels)
	}
	fmt.Fprintf(b, `# The base image is expected to contain
# /bin/opm (with a serve subcommand) and /bin/grpc_health_probe
FROM %s

# Configure the entrypoint and command
ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]
EXPOSE 50051

# Copy declarative config root into image at /configs and pre-populate serve cache
ADD %s /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

# Set DC-specific label for the location of the DC root directory
# in the image
LABEL %s=/configs
`, base, dir, ConfigsLabel)
	return writeExtraLabels(b, opts.ExtraLabels)
}

func writeExtraLabels(b *bufio.Writer, labels map[string]string) error {
	if len(labels) > 0 {
		keys := make([]string, 0, len(labels))
		for k := range labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\n# Set other custom labels\n")
		for _, k := range keys {
			if strings.ContainsAny(k+labels[k], "\r\n") {
				return fmt.Errorf("label %q: keys and values cannot span lines in a Dockerfile", k)
			}
			fmt.Fprintf(b, "LABEL %s=%s\n", dockerfileQuote(k), dockerfileQuote(labels[k]))
		}
	}
	return b.Flush()
}

// dockerfileQuote double-quotes s for a LABEL instruction, escaping what the Dockerfile parser
// would otherwise interpret.
func dockerfileQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`)
	return `"` + r.Replace(s) + `"`
}

// ParseLabels parses "key=value" strings as `opm generate dockerfile --extra-labels` does: the
// first "=" splits, later duplicates win.
func ParseLabels(pairs []string) (map[string]string, error) {
	labels := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid label %q: want key=value", p)
		}
		labels[k] = v
	}
	return labels, nil
}
