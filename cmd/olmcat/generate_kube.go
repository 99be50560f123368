package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/grpccompat/httpapi"
	"github.com/olmcat/olmcat/grpccompat/serve"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

const generateKubeLong = `Write the Kubernetes manifests that serve a catalog image, as a platform team applies them
(kubectl apply -f -), one YAML document each, on standard output:

  CatalogSource   OLM v0: sourceType grpc, address NAME.NAMESPACE.svc:50051, the Service below
                  (OLM connects to it and runs no registry pod of its own: the catalog is served once)
  ClusterCatalog  OLM v1: catalogd unpacks the image and serves it (File-Based Catalog images only)
  Deployment      the image served directly: restricted pod security (runAsNonRoot,
                  readOnlyRootFilesystem, no capabilities, seccomp RuntimeDefault), UID 65532 (an opm
                  image: its USER, else 1001, and group 0, as OLM runs its registry pods; on
                  OpenShift drop runAsUser and runAsGroup: its restricted SCC assigns them), an
                  emptyDir for TMPDIR (the image's /tmp holds the pre-built cache, so /tmp is not
                  mounted over), startup, readiness and liveness probes
  Service         in front of the Deployment: more replicas serve more clusters

The image is read (its configuration, no layer) to see what serves its catalog:

  olmcat (entrypoint /bin/olmcat, as 'migrate --to-image --server olmcat' builds it): olmcat serve
      of the catalog its labels name (an index.db too: then no ClusterCatalog), --cache-dir as its
      CMD names it, with gRPC on 50051, catalogd's HTTP API on 8080, metrics on 9090 (Prometheus scrape
      annotations), JSON logs, probes on /readyz and /livez
  opm, File-Based Catalog (label operators.operatorframework.io.index.configs.v1): opm serve DIR
      [--cache-dir as the image's CMD names it] -p 50051; gRPC only, probed by exec
      'grpc_health_probe -addr=:50051' as OLM probes its own registry pods
  opm, index.db (label operators.operatorframework.io.index.database.v1): opm registry serve
      --database PATH -p 50051, the same probes; no ClusterCatalog (catalogd reads only
      File-Based Catalogs), said once on standard error

A binary-less File-Based Catalog image (no ENTRYPOINT or CMD: 'generate dockerfile -i scratch')
needs --olm-pod: its CatalogSource has OLM serve it with OLM's own opm (grpcPodConfig.extractContent).
Any other image is refused (exit 2), naming its entrypoint and labels. An oci-layout:DIR or
docker-archive:FILE IMAGE is read here; --image REF then gives the reference the cluster pulls,
written into the manifests. --olm-pod writes the CatalogSource naming the image instead (OLM runs
the registry pod), with no Deployment or Service.

Memory: the request is the peak memory of serving the catalog, measured by loading it here (from
the image, or from --catalog, a local copy of what the image holds), with a quarter more headroom and
rounded up to 16Mi; the limit is twice the request. --memory sets the request instead, without
measuring.`

func newGenerateKubeCmd() *cobra.Command {
	var (
		name, namespace, catalog, memory, manifestImage string
		replicas                                        int
		olmPod                                          bool
		in                                              inputFlags
	)
	cmd := &cobra.Command{
		Use:   "kube IMAGE",
		Short: "Write a CatalogSource, a ClusterCatalog and a Deployment + Service serving a catalog image",
		Long:  generateKubeLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := args[0]
			image := manifestImage
			if _, local := indeximage.LocalImagePath(ref); local && image == "" {
				return usageError{fmt.Errorf("%s is read here to see what serves it and to measure it, but a cluster cannot pull it: give --image REGISTRY/REPOSITORY:TAG (or @sha256:DIGEST), where it is pushed, for the manifests", ref)}
			}
			if image == "" {
				image = ref
			}
			what := "IMAGE"
			if manifestImage != "" {
				what = "--image"
			}
			if !imageRefPattern.MatchString(image) {
				return usageError{fmt.Errorf("%s %q is not an image reference: give REGISTRY/REPOSITORY:TAG or @sha256:DIGEST as a cluster pulls it", what, image)}
			}
			derived := name == ""
			if derived {
				name = nameFromImage(image)
			}
			if err := checkKubeOptions(name, namespace, replicas, derived); err != nil {
				return usageError{err}
			}
			var request uint64
			if memory != "" {
				var err error
				if request, err = parseMemory(memory); err != nil {
					return usageError{fmt.Errorf("--memory %q: %v", memory, err)}
				}
			}
			// What serves the catalog is in the image's configuration (no layer is read here).
			cfg, err := source.ImageConfig(cmd.Context(), ref, in.images)
			if err != nil {
				return err
			}
			server, err := classifyKubeImage(ref, cfg)
			if err != nil {
				return usageError{err}
			}
			if server.Kind == kubeServerNone && !olmPod {
				return usageError{fmt.Errorf("%s holds a File-Based Catalog at %s and no server (no ENTRYPOINT or CMD: a binary-less image, for catalogd and OLM's grpcPodConfig.extractContent), so no Deployment can run it: pass --olm-pod for a CatalogSource that has OLM serve it with its own opm, and the ClusterCatalog", ref, server.Configs)}
			}
			if server.Database != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: %s holds an index.db (%s): no ClusterCatalog is written, as catalogd reads only File-Based Catalogs (convert it with 'olmcat migrate')\n", ref, server.Database)
			}
			if memory == "" {
				measured := catalog
				if measured == "" {
					measured = ref
				}
				peak, err := serve.MeasureMemory(cmd.Context(), serve.Options{Path: measured, Source: in.options(cmd), HTTPAddr: ":0"})
				if err != nil {
					return fmt.Errorf("measuring the memory serving %s needs (give --catalog DIR with what the image holds, or --memory): %w", measured, err)
				}
				request = roundUp(peak+peak/4, 16<<20)
				fmt.Fprintf(cmd.ErrOrStderr(), "olmcat: serving %s peaked at %s; memory request %s, limit %s\n", measured, quantity(peak), quantity(request), quantity(2*request))
			}
			return writeKube(cmd.OutOrStdout(), kubeOptions{Image: image, Name: name, Namespace: namespace, MemoryRequest: request, Replicas: replicas, Server: server, OLMPod: olmPod})
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the catalog's name (CatalogSource, ClusterCatalog, Deployment, Service); default: from the image's repository")
	f.StringVarP(&namespace, "namespace", "n", "olm", "namespace of the CatalogSource, Deployment and Service (ClusterCatalog is cluster-scoped)")
	f.StringVar(&catalog, "catalog", "", "measure memory on this catalog reference (what the image holds) instead of loading the image (its configuration is still read)")
	f.StringVar(&memory, "memory", "", "memory request, e.g. 256Mi, instead of measuring (the limit is twice it; the image's configuration is still read)")
	f.StringVar(&manifestImage, "image", "", "the image reference written into the manifests, as the cluster pulls it (needed when IMAGE is an oci-layout: or docker-archive:)")
	f.BoolVar(&olmPod, "olm-pod", false, "write a CatalogSource naming the image (OLM runs its own registry pod) instead of the Deployment + Service and a CatalogSource pointing at them")
	f.IntVar(&replicas, "replicas", 2, "replicas of the Deployment")
	addImageFlags(f, &in.images)
	in.templates = &templateInputs{}
	return cmd
}

// imageRefPattern is a loose image reference: what a kubelet can pull, not a local archive.
var imageRefPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9._:-]*[a-z0-9])?(/[a-z0-9._-]+)+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$|^[a-z0-9._-]+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`)

// nameFromImage is the last path element of the repository, made a DNS label.
func nameFromImage(image string) string {
	repo := image
	if i := strings.Index(repo, "@"); i >= 0 {
		repo = repo[:i]
	}
	if i := strings.LastIndex(repo, "/"); i >= 0 {
		repo = repo[i+1:]
	}
	if i := strings.Index(repo, ":"); i >= 0 {
		repo = repo[:i]
	}
	repo = strings.Trim(regexp.MustCompile(`[^a-z0-9-]+`).ReplaceAllString(strings.ToLower(repo), "-"), "-")
	if repo == "" {
		return "catalog"
	}
	if repo[0] < 'a' || repo[0] > 'z' {
		// A Service's name is a DNS-1035 label: a letter first (quay.io/me/9-catalog).
		repo = "catalog-" + repo
	}
	if len(repo) > validation.DNS1035LabelMaxLength {
		repo = strings.TrimRight(repo[:validation.DNS1035LabelMaxLength], "-")
	}
	return repo
}

// checkKubeOptions refuses a name, namespace or replica count the API server would refuse in
// one of the objects written, with k8s.io/apimachinery's own validation and words; derived says
// the name was made from the image (the advice is then --name).
func checkKubeOptions(name, namespace string, replicas int, derived bool) error {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return fmt.Errorf("--namespace (-n) %q: a namespace must be a DNS-1123 label, and Kubernetes says: %s; pass another --namespace", namespace, strings.Join(errs, "; "))
	}
	what := fmt.Sprintf("--name %q", name)
	if derived {
		what = fmt.Sprintf("the name %q made from the image's repository", name)
	}
	for _, rule := range []struct {
		objects, rule string
		check         func(string) []string
	}{
		{"the Service", "a DNS-1035 label", validation.IsDNS1035Label},
		{"the CatalogSource and the Deployment", "a DNS-1123 subdomain", validation.IsDNS1123Subdomain},
		{"the ClusterCatalog", "a DNS-1123 label", validation.IsDNS1123Label},
		{"the app.kubernetes.io/name label", "a label value", validation.IsValidLabelValue},
	} {
		if errs := rule.check(name); len(errs) > 0 {
			return fmt.Errorf("%s: the name of %s must be %s, and Kubernetes says: %s; pass --name NAME (a lower case letter, then lower case letters, digits or '-', at most %d characters)",
				what, rule.objects, rule.rule, strings.Join(errs, "; "), validation.DNS1035LabelMaxLength)
		}
	}
	if err := httpapi.CheckCatalogName(name); err != nil { // --http-catalog-name of the Deployment
		return fmt.Errorf("%s: %v; pass --name NAME", what, err)
	}
	if errs := validation.IsInRange(replicas, 1, math.MaxInt32); len(errs) > 0 {
		return fmt.Errorf("--replicas %d: Kubernetes says: %s (a Deployment's replicas is a 32-bit number)", replicas, strings.Join(errs, "; "))
	}
	return nil
}

var memoryPattern = regexp.MustCompile(`^([0-9]+)(Ki|Mi|Gi)?$`)

func parseMemory(s string) (uint64, error) {
	m := memoryPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, errors.New("give a size in bytes or Ki, Mi, Gi, e.g. 256Mi")
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, err
	}
	shift := map[string]uint{"": 0, "Ki": 10, "Mi": 20, "Gi": 30}[m[2]]
	if n == 0 || n > (1<<40)>>shift {
		return 0, errors.New("it must be more than 0 and at most 1Ti")
	}
	return n << shift, nil
}

func roundUp(n, to uint64) uint64 { return (n + to - 1) / to * to }

// quantity writes bytes as Kubernetes does for whole Mi or Ki, else in bytes.
func quantity(n uint64) string {
	switch {
	case n%(1<<20) == 0:
		return strconv.FormatUint(n>>20, 10) + "Mi"
	case n%(1<<10) == 0:
		return strconv.FormatUint(n>>10, 10) + "Ki"
	}
	return strconv.FormatUint(n, 10)
}

type kubeOptions struct {
	Image, Name, Namespace string
	MemoryRequest          uint64
	Replicas               int
	// Server is what serves the catalog in the image; OLMPod writes the CatalogSource naming the
	// image (OLM runs the pod) instead of the Deployment + Service.
	Server kubeServer
	OLMPod bool
}

// The ports of the Deployment's server.
const (
	kubeGRPCPort    = 50051
	kubeHTTPPort    = 8080
	kubeMetricsPort = 9090
	kubeTmpDir      = "/var/tmp"
	kubeUser        = 65532 // distroless's nonroot
	// olmWorkloadUser is the UID OLM v0 runs its own registry pods with (catalog operator's
	// defaultWorkLoadUserID), and opm's images' USER.
	olmWorkloadUser = 1001
)

// podSecurityContext is the restricted pod security of the Deployment. An olmcat image names no
// user: runAsNonRoot needs one given (OpenShift's restricted SCC assigns its own; drop runAsUser
// and runAsGroup there). An opm image runs as OLM v0 runs its registry pods: its own USER (or
// 1001) and no group, so that the primary group stays 0, the group that can read the pre-built
// cache opm's Dockerfile copies in (owned by root, not world-readable): with olmcat's 65532:65532
// opm could not open /tmp/cache.
func podSecurityContext(s kubeServer) map[string]any {
	sc := map[string]any{"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"}}
	switch s.Kind {
	case kubeServerOPM, kubeServerOPMIndex:
		sc["runAsUser"] = cmp.Or(s.User, olmWorkloadUser)
	default:
		sc["runAsUser"], sc["runAsGroup"], sc["fsGroup"] = kubeUser, kubeUser, kubeUser
	}
	return sc
}

// kubeManifests are the objects generate kube writes, in apply order.
func kubeManifests(o kubeOptions) []map[string]any {
	if o.Server.Kind == kubeServerNone {
		o.OLMPod = true // nothing in the image runs: OLM serves it with its own opm
	}
	labels := map[string]any{"app.kubernetes.io/name": o.Name, "app.kubernetes.io/component": "catalog-server", "app.kubernetes.io/managed-by": "olmcat"}
	selector := map[string]any{"app.kubernetes.io/name": o.Name, "app.kubernetes.io/component": "catalog-server"}
	meta := func(namespaced bool) map[string]any {
		m := map[string]any{"name": o.Name, "labels": labels}
		if namespaced {
			m["namespace"] = o.Namespace
		}
		return m
	}
	request, limit := quantity(o.MemoryRequest), quantity(2*o.MemoryRequest)
	probe := func(path string, period, failures int) map[string]any {
		return map[string]any{"httpGet": map[string]any{"path": path, "port": "http"}, "periodSeconds": period, "failureThreshold": failures, "timeoutSeconds": 5}
	}
	catalogSource := map[string]any{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource", "metadata": meta(true),
		// OLM connects to the Service: the catalog is served once, by the Deployment.
		"spec": map[string]any{
			"sourceType": "grpc", "address": fmt.Sprintf("%s.%s.svc:%d", o.Name, o.Namespace, kubeGRPCPort), "displayName": o.Name,
		},
	}
	if o.OLMPod {
		catalogSource["spec"] = map[string]any{
			"sourceType": "grpc", "image": o.Image, "displayName": o.Name,
			"grpcPodConfig": map[string]any{"securityContextConfig": "restricted", "memoryTarget": request},
		}
		if o.Server.Kind == kubeServerNone { // OLM copies its opm in and serves the catalog with it
			catalogSource["spec"].(map[string]any)["grpcPodConfig"].(map[string]any)["extractContent"] = map[string]any{"catalogDir": o.Server.Configs}
		}
	}
	clusterCatalog := map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterCatalog", "metadata": meta(false),
		"spec": map[string]any{"source": map[string]any{"type": "Image", "image": map[string]any{"ref": o.Image}}},
	}
	container := map[string]any{
		"name": "server", "image": o.Image,
		"args": append(olmcatServeArgs(o.Server),
			fmt.Sprintf("--port=%d", kubeGRPCPort), fmt.Sprintf("--http-addr=:%d", kubeHTTPPort), fmt.Sprintf("--metrics-addr=:%d", kubeMetricsPort),
			"--http-catalog-name="+o.Name, "--log-format=json", "--termination-log=/dev/termination-log"),
		"env": []any{map[string]any{"name": "TMPDIR", "value": kubeTmpDir}},
		"ports": []any{
			map[string]any{"name": "grpc", "containerPort": kubeGRPCPort, "protocol": "TCP"},
			map[string]any{"name": "http", "containerPort": kubeHTTPPort, "protocol": "TCP"},
			map[string]any{"name": "metrics", "containerPort": kubeMetricsPort, "protocol": "TCP"},
		},
		// The catalog loads before /readyz answers 200: up to 5 minutes for a large one.
		"startupProbe":   probe("/readyz", 2, 150),
		"readinessProbe": probe("/readyz", 10, 3),
		"livenessProbe":  probe("/livez", 10, 6),
		"resources": map[string]any{
			"requests": map[string]any{"cpu": "10m", "memory": request},
			"limits":   map[string]any{"memory": limit},
		},
		"securityContext": map[string]any{
			"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
			"capabilities":   map[string]any{"drop": []any{"ALL"}},
			"seccompProfile": map[string]any{"type": "RuntimeDefault"},
		},
		"terminationMessagePolicy": "FallbackToLogsOnError",
		"volumeMounts":             []any{map[string]any{"name": "tmp", "mountPath": kubeTmpDir}},
	}
	podAnnotations := map[string]any{"prometheus.io/scrape": "true", "prometheus.io/port": strconv.Itoa(kubeMetricsPort), "prometheus.io/path": "/metrics"}
	servicePorts := []any{
		map[string]any{"name": "grpc", "port": kubeGRPCPort, "targetPort": "grpc", "protocol": "TCP"},
		map[string]any{"name": "http", "port": kubeHTTPPort, "targetPort": "http", "protocol": "TCP"},
		map[string]any{"name": "metrics", "port": kubeMetricsPort, "targetPort": "metrics", "protocol": "TCP"},
	}
	if o.Server.Kind == kubeServerOPM || o.Server.Kind == kubeServerOPMIndex {
		// opm serves gRPC alone (no HTTP API, metrics or JSON logs): its flags, and the probe OLM
		// runs in its own registry pods (grpc_health_probe, in opm's images).
		args := []any{"serve", o.Server.Configs}
		if o.Server.CacheDir != "" {
			args = append(args, "--cache-dir="+o.Server.CacheDir)
		}
		if o.Server.Kind == kubeServerOPMIndex {
			args = []any{"registry", "serve", "--database", o.Server.Database}
		}
		container["args"] = append(args, "-p", strconv.Itoa(kubeGRPCPort))
		container["ports"] = []any{map[string]any{"name": "grpc", "containerPort": kubeGRPCPort, "protocol": "TCP"}}
		grpcProbe := func(period, failures int) map[string]any {
			return map[string]any{"exec": map[string]any{"command": []any{"grpc_health_probe", fmt.Sprintf("-addr=:%d", kubeGRPCPort)}},
				"periodSeconds": period, "failureThreshold": failures, "timeoutSeconds": 5}
		}
		container["startupProbe"], container["readinessProbe"], container["livenessProbe"] = grpcProbe(2, 150), grpcProbe(10, 3), grpcProbe(10, 6)
		podAnnotations = nil
		servicePorts = servicePorts[:1]
	}
	deployment := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(true),
		"spec": map[string]any{
			"replicas": o.Replicas,
			"selector": map[string]any{"matchLabels": selector},
			"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 0, "maxSurge": 1}},
			"template": map[string]any{
				"metadata": podMetadata(labels, podAnnotations),
				"spec": map[string]any{
					"automountServiceAccountToken": false,
					// SIGTERM drains in-flight calls (--drain-timeout, 30 s by default).
					"terminationGracePeriodSeconds": 40,
					"securityContext":               podSecurityContext(o.Server),
					"containers":                    []any{container},
					"volumes":                       []any{map[string]any{"name": "tmp", "emptyDir": map[string]any{}}},
				},
			},
		},
	}
	service := map[string]any{
		"apiVersion": "v1", "kind": "Service", "metadata": meta(true),
		"spec": map[string]any{
			"selector": selector,
			"ports":    servicePorts,
		},
	}
	out := []map[string]any{catalogSource}
	if o.Server.Database == "" { // catalogd reads File-Based Catalogs only
		out = append(out, clusterCatalog)
	}
	if !o.OLMPod {
		out = append(out, deployment, service)
	}
	return out
}

// olmcatServeArgs are olmcat serve's catalog and cache as the image's labels and CMD give them.
func olmcatServeArgs(s kubeServer) []any {
	catalog := s.Configs
	if catalog == "" {
		catalog = s.Database
	}
	if catalog == "" {
		catalog = indeximage.DefaultConfigsPath
	}
	args := []any{"serve", catalog}
	if s.CacheDir != "" {
		args = append(args, "--cache-dir="+s.CacheDir)
	}
	return args
}

func podMetadata(labels, annotations map[string]any) map[string]any {
	m := map[string]any{"labels": labels}
	if annotations != nil {
		m["annotations"] = annotations
	}
	return m
}

func writeKube(w io.Writer, o kubeOptions) error {
	for i, m := range kubeManifests(o) {
		b, err := yaml.Marshal(m)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
