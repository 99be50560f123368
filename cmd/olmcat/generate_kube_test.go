package main

import (
	"bytes"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// The OLM API types, as their upstream Go types spell them (operator-framework/api
// pkg/operators/v1alpha1 CatalogSource, operator-controller api/v1 ClusterCatalog): those modules
// bring client-go and controller-runtime into the build (see the commit that added this test).
// Only the fields generate kube may write are here, with upstream's names and types; decoding is
// strict, so a field upstream does not have, or one misspelled, fails.
type catalogSource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		SourceType    string `json:"sourceType"`
		Address       string `json:"address,omitempty"`
		Image         string `json:"image,omitempty"`
		DisplayName   string `json:"displayName,omitempty"`
		Publisher     string `json:"publisher,omitempty"`
		GrpcPodConfig *struct {
			NodeSelector          map[string]string   `json:"nodeSelector,omitempty"`
			Tolerations           []corev1.Toleration `json:"tolerations,omitempty"`
			PriorityClassName     *string             `json:"priorityClassName,omitempty"`
			SecurityContextConfig string              `json:"securityContextConfig,omitempty"`
			MemoryTarget          *resource.Quantity  `json:"memoryTarget,omitempty"`
			ExtractContent        *struct {
				CacheDir   string `json:"cacheDir,omitempty"`
				CatalogDir string `json:"catalogDir"`
			} `json:"extractContent,omitempty"`
		} `json:"grpcPodConfig,omitempty"`
	} `json:"spec"`
}

type clusterCatalog struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Source struct {
			Type  string `json:"type"`
			Image *struct {
				Ref                 string `json:"ref"`
				PollIntervalMinutes *int   `json:"pollIntervalMinutes,omitempty"`
			} `json:"image,omitempty"`
		} `json:"source"`
		Priority         int32  `json:"priority,omitempty"`
		AvailabilityMode string `json:"availabilityMode,omitempty"`
	} `json:"spec"`
}

func TestGenerateKubeManifestsDecodeStrictly(t *testing.T) {
	var out bytes.Buffer
	const image = "quay.io/example/prod-catalog@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if err := writeKube(&out, kubeOptions{Image: image, Name: nameFromImage(image), Namespace: "catalogs", MemoryRequest: 96 << 20, Replicas: 3, Server: kubeServer{Kind: kubeServerOlmcat, Configs: "/configs", CacheDir: "/tmp/cache"}}); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out.String(), "\n---\n")
	if len(docs) != 4 {
		t.Fatalf("%d documents, want 4 (CatalogSource, ClusterCatalog, Deployment, Service)", len(docs))
	}
	var (
		cs  catalogSource
		cc  clusterCatalog
		dep appsv1.Deployment
		svc corev1.Service
	)
	for i, into := range []any{&cs, &cc, &dep, &svc} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), into); err != nil {
			t.Fatalf("document %d does not decode strictly into %T: %v\n%s", i+1, into, err, docs[i])
		}
	}
	if cs.Kind != "CatalogSource" || cs.APIVersion != "operators.coreos.com/v1alpha1" || cs.Spec.SourceType != "grpc" || cs.Spec.Image != "" ||
		cs.Name != "prod-catalog" || cs.Namespace != "catalogs" || cs.Spec.Address != "prod-catalog.catalogs.svc:50051" || cs.Spec.GrpcPodConfig != nil {
		t.Errorf("CatalogSource: %+v", cs)
	}
	if cc.Kind != "ClusterCatalog" || cc.APIVersion != "olm.operatorframework.io/v1" || cc.Spec.Source.Type != "Image" || cc.Spec.Source.Image.Ref != image || cc.Namespace != "" {
		t.Errorf("ClusterCatalog: %+v", cc)
	}
	if dep.Kind != "Deployment" || *dep.Spec.Replicas != 3 || dep.Namespace != "catalogs" {
		t.Errorf("Deployment: kind %s, %d replicas, namespace %s", dep.Kind, *dep.Spec.Replicas, dep.Namespace)
	}
	pod := dep.Spec.Template.Spec
	for k, v := range dep.Spec.Selector.MatchLabels {
		if dep.Spec.Template.Labels[k] != v || svc.Spec.Selector[k] != v {
			t.Errorf("selector label %s=%s is not on the pod template and the Service", k, v)
		}
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	// Restricted pod security.
	sc := c.SecurityContext
	if sc == nil || !*sc.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" ||
		sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || !*pod.SecurityContext.RunAsNonRoot || *pod.SecurityContext.RunAsUser == 0 {
		t.Errorf("the container is not restricted: %+v, pod %+v", sc, pod.SecurityContext)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, p := range svc.Spec.Ports {
		if _, ok := ports[p.TargetPort.StrVal]; !ok {
			t.Errorf("Service port %s targets %q, no container port", p.Name, p.TargetPort.StrVal)
		}
	}
	for probe, path := range map[*corev1.Probe]string{c.StartupProbe: "/readyz", c.ReadinessProbe: "/readyz", c.LivenessProbe: "/livez"} {
		if probe == nil || probe.HTTPGet.Path != path || ports[probe.HTTPGet.Port.StrVal] == 0 {
			t.Errorf("a probe on %s is missing or on no port: %+v", path, probe)
		}
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"--metrics-addr=:9090", "--http-addr=:8080", "--port=50051", "--cache-dir=/tmp/cache"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %s", args, want)
		}
	}
	if c.Resources.Requests.Memory().Value() != 96<<20 || c.Resources.Limits.Memory().Value() != 192<<20 {
		t.Errorf("resources %v", c.Resources)
	}
	if a := dep.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "9090" {
		t.Errorf("no Prometheus scrape annotations: %v", a)
	}
	// TMPDIR is a writable volume that does not hide the pre-built cache under /tmp.
	var tmpdir string
	for _, e := range c.Env {
		if e.Name == "TMPDIR" {
			tmpdir = e.Value
		}
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/tmp" || strings.HasPrefix("/tmp/cache", m.MountPath+"/") {
			t.Errorf("volume %s at %s hides the image's cache", m.Name, m.MountPath)
		}
		mounted = mounted || m.MountPath == tmpdir
	}
	if tmpdir == "" || !mounted {
		t.Errorf("TMPDIR %q is not a mounted volume", tmpdir)
	}
}

func TestGenerateKubeRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"generate", "kube", "oci-layout:/tmp/x", "--memory", "64Mi"},
		{"generate", "kube", "quay.io/a/b:v1", "--memory", "lots"},
		{"generate", "kube", "quay.io/a/b:v1", "--memory", "64Mi", "--name", "Not_A_Name"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.HasPrefix(stderr, "olmcat: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one olmcat: sentence", args, code, stderr)
		}
	}
}

// Without --memory the request is measured by loading the catalog, here from --catalog.
func TestGenerateKubeMeasuresMemory(t *testing.T) {
	layout := imagetest.OCILayout(t, olmcatImage(t))
	code, stdout, stderr := runCLI(t, "generate", "kube", layout, "--image", "quay.io/example/catalog:v1", "--catalog", "../../fixtures/catalog")
	if code != 0 || !strings.Contains(stderr, "peaked at") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var dep appsv1.Deployment
	for _, doc := range strings.Split(stdout, "\n---\n") {
		if strings.Contains(doc, "\nkind: Deployment\n") {
			if err := yaml.UnmarshalStrict([]byte(doc), &dep); err != nil {
				t.Fatal(err)
			}
		}
	}
	req := dep.Spec.Template.Spec.Containers[0].Resources.Requests.Memory().Value()
	if req < 16<<20 || req%(16<<20) != 0 {
		t.Errorf("measured memory request %d: want a multiple of 16Mi, at least 16Mi", req)
	}
}

// Issue 35 item 7: what the API server would refuse is refused here, exit 2 naming the rule, and
// a name made from a repository that starts with a digit gets a letter first.
func TestGenerateKubeRefusesWhatKubernetesRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "BAD_NS"}, "--namespace (-n) \"BAD_NS\": a namespace must be a DNS-1123 label"},
		{[]string{"-n", strings.Repeat("a", 100)}, "must be no more than 63 characters"},
		{[]string{"--replicas", "3000000000"}, "must be between 1 and 2147483647"},
		{[]string{"--replicas", "0"}, "must be between 1 and 2147483647"},
		{[]string{"--name", "9-catalog"}, "the name of the Service must be a DNS-1035 label"},
		{[]string{"--name", "a.b"}, "DNS-1035 label"},
		{[]string{"--name", strings.Repeat("a", 64)}, "must be no more than 63 characters"},
	} {
		args := append([]string{"generate", "kube", "quay.io/me/catalog:v1", "--memory", "64Mi"}, c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "olmcat: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want 2, nothing on stdout and one sentence saying %q", c.args, code, len(stdout), stderr, c.want)
		}
	}
	layout := imagetest.OCILayout(t, olmcatImage(t))
	for image, want := range map[string]string{
		"quay.io/me/9-catalog:v1":                      "catalog-9-catalog",
		"quay.io/me/" + strings.Repeat("7", 80) + ":1": "catalog-" + strings.Repeat("7", 55),
		"quay.io/me/-_-:v1":                            "catalog",
		"quay.io/me/my_catalog.v2:v1":                  "my-catalog-v2",
	} {
		code, stdout, stderr := runCLI(t, "generate", "kube", layout, "--image", image, "--memory", "64Mi")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", image, code, stderr)
			continue
		}
		var svc corev1.Service
		for _, doc := range strings.Split(stdout, "\n---\n") {
			if strings.Contains(doc, "\nkind: Service\n") {
				if err := yaml.UnmarshalStrict([]byte(doc), &svc); err != nil {
					t.Fatal(err)
				}
			}
		}
		if svc.Name != want || len(validation.IsDNS1035Label(svc.Name)) > 0 {
			t.Errorf("%s: Service name %q, want %q (a DNS-1035 label)", image, svc.Name, want)
		}
	}
}
