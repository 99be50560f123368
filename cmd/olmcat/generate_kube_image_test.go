package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// withCommand sets an image's ENTRYPOINT and CMD, as the Dockerfile that built it says.
func withCommand(t *testing.T, img v1.Image, entrypoint, cmd []string) v1.Image {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.Config.Entrypoint, cf.Config.Cmd = entrypoint, cmd
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// The three kinds of catalog image, as their builders write them: olmcat's server image
// (BuildServerImage), opm's FBC image (opm generate dockerfile: ENTRYPOINT /bin/opm, CMD serve
// /configs --cache-dir=/tmp/cache) and opm's index.db image (opm index add: CMD registry serve
// --database /database/index.db).
func olmcatImage(t *testing.T) v1.Image {
	return withCommand(t, imagetest.FBCImage(t, "../../fixtures/catalog"), []string{"/bin/olmcat"}, []string{"serve", "/configs", "--cache-dir=/tmp/cache"})
}

// olmcatIndexImage is an index.db served by olmcat (no cache named: none is given).
func olmcatIndexImage(t *testing.T) v1.Image {
	return withCommand(t, imagetest.DBImage(t, "../../fixtures/index.db"), []string{"/bin/olmcat"}, []string{"serve", "/database/index.db"})
}

func opmFBCImage(t *testing.T) v1.Image {
	return withCommand(t, imagetest.FBCImage(t, "../../fixtures/catalog"), []string{"/bin/opm"}, []string{"serve", "/configs", "--cache-dir=/tmp/cache"})
}

func opmIndexImage(t *testing.T) v1.Image {
	return withCommand(t, imagetest.DBImage(t, "../../fixtures/index.db"), []string{"/bin/opm"}, []string{"registry", "serve", "--database", "/database/index.db"})
}

// kubeDocs are generate kube's documents, each decoded strictly into its upstream type.
type kubeDocs struct {
	kinds []string
	cs    *catalogSource
	cc    *clusterCatalog
	dep   *appsv1.Deployment
	svc   *corev1.Service
}

func decodeKube(t *testing.T, out string) kubeDocs {
	t.Helper()
	var d kubeDocs
	for _, doc := range strings.Split(out, "\n---\n") {
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		var into any
		switch meta.Kind {
		case "CatalogSource":
			d.cs = &catalogSource{}
			into = d.cs
		case "ClusterCatalog":
			d.cc = &clusterCatalog{}
			into = d.cc
		case "Deployment":
			d.dep = &appsv1.Deployment{}
			into = d.dep
		case "Service":
			d.svc = &corev1.Service{}
			into = d.svc
		default:
			t.Fatalf("a document of kind %q:\n%s", meta.Kind, doc)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("a %s does not decode strictly: %v\n%s", meta.Kind, err, doc)
		}
		d.kinds = append(d.kinds, meta.Kind)
	}
	return d
}

// Issue 37 item 4: each image gets the server its entrypoint and labels say, the CatalogSource
// points at the Service (the catalog is served once), and a local image's reference never reaches
// a manifest.
func TestGenerateKubeServesEachImageAsItSays(t *testing.T) {
	const image = "quay.io/me/catalog:v1"
	opmProbe := []string{"grpc_health_probe", "-addr=:50051"}
	for _, c := range []struct {
		name  string
		img   func(*testing.T) v1.Image
		args  []string
		kinds []string
		probe []string // exec probe, nil for olmcat's HTTP probes
		ports []string
	}{
		{"olmcat", olmcatImage,
			[]string{"serve", "/configs", "--cache-dir=/tmp/cache", "--port=50051", "--http-addr=:8080", "--metrics-addr=:9090", "--http-catalog-name=catalog", "--log-format=json", "--termination-log=/dev/termination-log"},
			[]string{"CatalogSource", "ClusterCatalog", "Deployment", "Service"}, nil, []string{"grpc", "http", "metrics"}},
		{"opm-fbc", opmFBCImage,
			[]string{"serve", "/configs", "--cache-dir=/tmp/cache", "-p", "50051"},
			[]string{"CatalogSource", "ClusterCatalog", "Deployment", "Service"}, opmProbe, []string{"grpc"}},
		{"olmcat-index.db", olmcatIndexImage,
			[]string{"serve", "/database/index.db", "--port=50051", "--http-addr=:8080", "--metrics-addr=:9090", "--http-catalog-name=catalog", "--log-format=json", "--termination-log=/dev/termination-log"},
			[]string{"CatalogSource", "Deployment", "Service"}, nil, []string{"grpc", "http", "metrics"}},
		{"opm-index.db", opmIndexImage,
			[]string{"registry", "serve", "--database", "/database/index.db", "-p", "50051"},
			[]string{"CatalogSource", "Deployment", "Service"}, opmProbe, []string{"grpc"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := c.img(t)
			for _, ref := range []string{imagetest.OCILayout(t, img), imagetest.DockerArchive(t, img)} {
				code, stdout, stderr := runCLI(t, "generate", "kube", ref, "--image", image, "-n", "catalogs", "--memory", "64Mi")
				if code != 0 {
					t.Fatalf("%s: exit %d: %s", ref, code, stderr)
				}
				if strings.Contains(stdout, "oci-layout:") || strings.Contains(stdout, "docker-archive:") {
					t.Errorf("%s: a local reference reached the manifests:\n%s", ref, stdout)
				}
				wantNotice := strings.HasSuffix(c.name, "index.db")
				if got := strings.Count(stderr, "no ClusterCatalog"); got != map[bool]int{true: 1, false: 0}[wantNotice] {
					t.Errorf("%s: stderr %q: the index.db notice should be said once for index.db images only", ref, stderr)
				}
				d := decodeKube(t, stdout)
				if !slices.Equal(d.kinds, c.kinds) {
					t.Fatalf("%s: documents %v, want %v", ref, d.kinds, c.kinds)
				}
				if d.cs.Spec.SourceType != "grpc" || d.cs.Spec.Address != "catalog.catalogs.svc:50051" || d.cs.Spec.Image != "" || d.cs.Spec.GrpcPodConfig != nil {
					t.Errorf("%s: the CatalogSource does not point at the Service alone: %+v", ref, d.cs.Spec)
				}
				if d.cc != nil && d.cc.Spec.Source.Image.Ref != image {
					t.Errorf("%s: ClusterCatalog ref %q", ref, d.cc.Spec.Source.Image.Ref)
				}
				ctr := d.dep.Spec.Template.Spec.Containers[0]
				if ctr.Image != image || !slices.Equal(ctr.Args, c.args) || len(ctr.Command) != 0 {
					t.Errorf("%s: container image %q command %q args %q, want %q args %q", ref, ctr.Image, ctr.Command, ctr.Args, image, c.args)
				}
				var ports, svcPorts []string
				for _, p := range ctr.Ports {
					ports = append(ports, p.Name)
				}
				for _, p := range d.svc.Spec.Ports {
					svcPorts = append(svcPorts, p.TargetPort.StrVal)
				}
				if !slices.Equal(ports, c.ports) || !slices.Equal(svcPorts, c.ports) {
					t.Errorf("%s: container ports %v, Service ports %v, want %v", ref, ports, svcPorts, c.ports)
				}
				for _, p := range []*corev1.Probe{ctr.StartupProbe, ctr.ReadinessProbe, ctr.LivenessProbe} {
					switch {
					case p == nil:
						t.Errorf("%s: a probe is missing", ref)
					case c.probe != nil && (p.Exec == nil || !slices.Equal(p.Exec.Command, c.probe) || p.HTTPGet != nil):
						t.Errorf("%s: probe %+v, want exec %q as OLM's registry pods", ref, p.ProbeHandler, c.probe)
					case c.probe == nil && p.HTTPGet == nil:
						t.Errorf("%s: probe %+v, want olmcat's HTTP probes", ref, p.ProbeHandler)
					}
				}
				// opm's images run as OLM v0 runs its registry pods (UID 1001, no group: group 0 reads
				// the cache opm's Dockerfile copies in); olmcat's as 65532:65532.
				psc := d.dep.Spec.Template.Spec.SecurityContext
				if c.probe != nil && (psc.RunAsUser == nil || *psc.RunAsUser != 1001 || psc.RunAsGroup != nil || psc.FSGroup != nil) ||
					c.probe == nil && (psc.RunAsUser == nil || *psc.RunAsUser != 65532 || psc.RunAsGroup == nil || *psc.RunAsGroup != 65532) ||
					psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
					t.Errorf("%s: pod security context %+v", ref, psc)
				}
				_, scraped := d.dep.Spec.Template.Annotations["prometheus.io/scrape"]
				if scraped != (c.probe == nil) {
					t.Errorf("%s: Prometheus annotations %v on a server with metrics=%v", ref, d.dep.Spec.Template.Annotations, c.probe == nil)
				}
			}
		})
	}
}

// --olm-pod writes the CatalogSource naming the image (OLM runs the registry pod) and no
// Deployment or Service.
func TestGenerateKubeOLMPod(t *testing.T) {
	for name, img := range map[string]func(*testing.T) v1.Image{"opm-fbc": opmFBCImage, "opm-index.db": opmIndexImage} {
		code, stdout, stderr := runCLI(t, "generate", "kube", imagetest.OCILayout(t, img(t)), "--image", "quay.io/me/catalog:v1", "--memory", "64Mi", "--olm-pod")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		d := decodeKube(t, stdout)
		want := []string{"CatalogSource", "ClusterCatalog"}
		if name == "opm-index.db" {
			want = want[:1]
		}
		if !slices.Equal(d.kinds, want) {
			t.Errorf("%s: documents %v, want %v", name, d.kinds, want)
		}
		if d.cs.Spec.Image != "quay.io/me/catalog:v1" || d.cs.Spec.Address != "" || d.cs.Spec.GrpcPodConfig.MemoryTarget.Value() != 64<<20 || d.cs.Spec.GrpcPodConfig.ExtractContent != nil {
			t.Errorf("%s: CatalogSource %+v", name, d.cs.Spec)
		}
	}
}

// A binary-less FBC image (no ENTRYPOINT or CMD: 'generate dockerfile -i scratch') has OLM serve it
// with its own opm (extractContent) under --olm-pod, and catalogd.
func TestGenerateKubeBinaryLessImage(t *testing.T) {
	code, stdout, stderr := runCLI(t, "generate", "kube", imagetest.OCILayout(t, imagetest.FBCImage(t, "../../fixtures/catalog")), "--image", "quay.io/me/catalog:v1", "--memory", "64Mi", "--olm-pod")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := decodeKube(t, stdout)
	if !slices.Equal(d.kinds, []string{"CatalogSource", "ClusterCatalog"}) {
		t.Fatalf("documents %v", d.kinds)
	}
	if ec := d.cs.Spec.GrpcPodConfig.ExtractContent; d.cs.Spec.Image != "quay.io/me/catalog:v1" || ec == nil || ec.CatalogDir != "/configs" {
		t.Errorf("CatalogSource %+v: want the image with extractContent.catalogDir /configs", d.cs.Spec)
	}
}

// An image nothing here knows how to serve, or a local image without --image, is exit 2 naming
// what was found.
func TestGenerateKubeRefusesImagesItCannotServe(t *testing.T) {
	fbc := imagetest.FBCImage(t, "../../fixtures/catalog")
	for _, c := range []struct {
		name string
		ref  string
		want []string
	}{
		{"shell entrypoint", imagetest.OCILayout(t, withCommand(t, fbc, []string{"/bin/sh", "-c"}, []string{"sleep infinity"})),
			[]string{`its entrypoint is ["/bin/sh" "-c"] with CMD ["sleep infinity"]`, "operators.operatorframework.io.index.configs.v1=/configs"}},
		{"no command, no catalog", imagetest.OCILayout(t, imagetest.Image(t, map[string][]byte{"x": []byte("x")}, map[string]string{"a": "b"})), []string{"empty (no ENTRYPOINT, no CMD)", "index labels are absent"}},
		{"no such layout", "oci-layout:" + filepath.Join(t.TempDir(), "none"), []string{"not found"}},
		{"not a layout", "oci-layout:" + t.TempDir(), []string{"bad image", "not an OCI image layout"}},
		{"binary-less FBC without --olm-pod", imagetest.OCILayout(t, fbc), []string{"holds a File-Based Catalog at /configs and no server", "pass --olm-pod"}},
		{"opm without index labels", imagetest.OCILayout(t, withCommand(t, imagetest.Image(t, map[string][]byte{"x": []byte("x")}, nil), []string{"/bin/opm"}, []string{"serve", "/configs"})),
			[]string{`["/bin/opm"]`, "index labels are absent"}},
	} {
		code, stdout, stderr := runCLI(t, "generate", "kube", c.ref, "--image", "quay.io/me/catalog:v1", "--memory", "64Mi")
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "olmcat: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want 2 and one sentence", c.name, code, len(stdout), stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q does not say %q", c.name, stderr, w)
			}
		}
	}
	for _, ref := range []string{imagetest.OCILayout(t, olmcatImage(t)), imagetest.DockerArchive(t, olmcatImage(t))} {
		code, stdout, stderr := runCLI(t, "generate", "kube", ref, "--memory", "64Mi")
		if code != 2 || stdout != "" || !strings.Contains(stderr, "give --image") {
			t.Errorf("%s without --image: exit %d, stderr %q; want 2 asking for --image", ref, code, stderr)
		}
		code, _, stderr = runCLI(t, "generate", "kube", "quay.io/me/catalog:v1", "--image", ref, "--memory", "64Mi")
		if code != 2 || !strings.Contains(stderr, "--image") {
			t.Errorf("--image %s: exit %d, stderr %q; want 2", ref, code, stderr)
		}
	}
}

// Without --memory the request is measured on the image itself, an index.db one included.
func TestGenerateKubeMeasuresAnIndexDBImage(t *testing.T) {
	code, stdout, stderr := runCLI(t, "generate", "kube", imagetest.OCILayout(t, opmIndexImage(t)), "--image", "quay.io/me/catalog:v1")
	if code != 0 || !strings.Contains(stderr, "peaked at") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	d := decodeKube(t, stdout)
	if req := d.dep.Spec.Template.Spec.Containers[0].Resources.Requests.Memory().Value(); req < 16<<20 || req%(16<<20) != 0 {
		t.Errorf("memory request %d", req)
	}
}

// The image 'migrate --oci-layout' makes of an opm index.db image keeps opm as its server: generate
// kube then writes opm serve of the catalog it holds (the index.db is gone), with a ClusterCatalog.
func TestGenerateKubeOnAMigratedIndexImage(t *testing.T) {
	dir := t.TempDir()
	layoutDir := filepath.Join(dir, "layout")
	if code, _, stderr := runCLI(t, "migrate", imagetest.OCILayout(t, opmIndexImage(t)), filepath.Join(dir, "fbc"), "--oci-layout", layoutDir); code != 0 {
		t.Fatalf("migrate: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "generate", "kube", "oci-layout:"+layoutDir, "--image", "quay.io/me/catalog:v1-fbc", "--memory", "64Mi")
	if code != 0 || strings.Contains(stderr, "no ClusterCatalog") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	d := decodeKube(t, stdout)
	if !slices.Equal(d.kinds, []string{"CatalogSource", "ClusterCatalog", "Deployment", "Service"}) {
		t.Fatalf("documents %v", d.kinds)
	}
	args := d.dep.Spec.Template.Spec.Containers[0].Args
	if len(args) < 4 || args[0] != "serve" || args[1] != "/configs" || !slices.Equal(args[len(args)-2:], []string{"-p", "50051"}) {
		t.Errorf("args %q: want opm serve /configs ... -p 50051", args)
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--http") || strings.HasPrefix(a, "--metrics") || strings.HasPrefix(a, "--log") || strings.Contains(a, "database") {
			t.Errorf("args %q: %s is not opm serve's", args, a)
		}
	}
}

// An opm image's own non-root numeric USER is the pod's UID; a name, root or nothing is not.
func TestNumericUser(t *testing.T) {
	for user, want := range map[string]int64{"1001": 1001, "2000:0": 2000, "": 0, "0": 0, "root": 0, "nobody": 0, "-5": 0} {
		if got := numericUser(user); got != want {
			t.Errorf("numericUser(%q) = %d, want %d", user, got, want)
		}
	}
}
