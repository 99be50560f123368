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
