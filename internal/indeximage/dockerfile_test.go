package indeximage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// opmDockerfile is the text opm's generate-dockerfile template renders (alpha/action), with the
// EXPOSE line olmcat adds.
const opmDockerfile = `# The base image is expected to contain
# /bin/opm (with a serve subcommand) and /bin/grpc_health_probe
FROM quay.io/operator-framework/opm:latest

# Configure the entrypoint and command
ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]
EXPOSE 50051

# Copy declarative config root into image at /configs and pre-populate serve cache
ADD catalog /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

# Set DC-specific label for the location of the DC root directory
# in the image
LABEL operators.operatorframework.io.index.configs.v1=/configs
`

func TestWriteDockerfile(t *testing.T) {
	var b strings.Builder
	if err := WriteDockerfile(&b, DockerfileOptions{IndexDir: "catalog"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(opmDockerfile, b.String()); diff != "" {
		t.Errorf("Dockerfile (-want +got):\n%s", diff)
	}

	b.Reset()
	labels, err := ParseLabels([]string{"vendor=acme", "a.b/c=x=y", "vendor=Acme \"Inc\" $HOME"})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteDockerfile(&b, DockerfileOptions{BaseImage: "registry.example/opm:v1.73", IndexDir: "catalog", ExtraLabels: labels}); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(opmDockerfile, "quay.io/operator-framework/opm:latest", "registry.example/opm:v1.73", 1) +
		"\n# Set other custom labels\nLABEL \"a.b/c\"=\"x=y\"\nLABEL \"vendor\"=\"Acme \\\"Inc\\\" \\$HOME\"\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Dockerfile with labels (-want +got):\n%s", diff)
	}

	for _, bad := range []DockerfileOptions{{IndexDir: ""}, {IndexDir: "my catalog"}, {IndexDir: "c", BaseImage: "a b"}, {IndexDir: "c", ExtraLabels: map[string]string{"k": "two\nlines"}}} {
		if err := WriteDockerfile(&strings.Builder{}, bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := ParseLabels([]string{"novalue"}); err == nil {
		t.Error("a label without = was accepted")
	}
}

// opmScratchDockerfile is what opm v1.72's generate-dockerfile template renders for
// -i scratch (the builder image the default opm image) and one extra label.
const opmScratchDockerfile = `# The builder image is expected to contain
# /bin/opm (with serve subcommand)
FROM quay.io/operator-framework/opm:latest as builder

# Copy FBC root into image at /configs and pre-populate serve cache
ADD catalog /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

FROM scratch
# OLMv0 CatalogSources that use binary-less images must set:
# spec:
#   grpcPodConfig:
#     extractContent:
#       catalogDir: /configs
#       cacheDir: /tmp/cache

COPY --from=builder /configs /configs
COPY --from=builder /tmp/cache /tmp/cache

# Set FBC-specific label for the location of the FBC root directory
# in the image
LABEL operators.operatorframework.io.index.configs.v1=/configs

# Set other custom labels
LABEL "team"="olm"
`

func TestWriteDockerfileTwoStages(t *testing.T) {
	var b strings.Builder
	opts := DockerfileOptions{BaseImage: "scratch", IndexDir: "catalog", ExtraLabels: map[string]string{"team": "olm"}}
	if err := WriteDockerfile(&b, opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(opmScratchDockerfile, b.String()); diff != "" {
		t.Errorf("scratch Dockerfile (-want +got):\n%s", diff)
	}
	b.Reset()
	opts = DockerfileOptions{BaseImage: "registry.example/opm:v1.72", BuilderImage: "registry.example/opm-builder:v1.72", IndexDir: "catalog"}
	if err := WriteDockerfile(&b, opts); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"FROM registry.example/opm-builder:v1.72 as builder\n", "\nFROM registry.example/opm:v1.72\n",
		"ENTRYPOINT [\"/bin/opm\"]\n", "EXPOSE 50051\n", "COPY --from=builder /tmp/cache /tmp/cache\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("two-stage Dockerfile lacks %q:\n%s", want, text)
		}
	}
	if i, j := strings.Index(text, "RUN "), strings.Index(text, "\nFROM registry.example/opm:v1.72"); i < 0 || i > j || strings.Count(text, "RUN ") != 1 {
		t.Errorf("the RUN is not in the builder stage alone:\n%s", text)
	}
	if err := WriteDockerfile(&strings.Builder{}, DockerfileOptions{IndexDir: "c", BuilderImage: "scratch"}); err == nil {
		t.Error("a scratch builder image was accepted")
	}
}
