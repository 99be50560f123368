package main

import (
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// An image's configuration is untrusted input: whatever it says, generate kube either refuses it
// or writes manifests that decode strictly, with opm's flags for opm and the label's paths.
func FuzzClassifyKubeImage(f *testing.F) {
	f.Add("/bin/opm", "serve\x00/configs\x00--cache-dir=/tmp/cache", "/configs", "")
	f.Add("/bin/opm", "registry\x00serve\x00--database\x00/database/index.db", "", "/database/index.db")
	f.Add("/bin/olmcat", "serve\x00/configs", "/configs", "")
	f.Add("", "", "/configs", "")
	f.Add("/bin/sh", "-c\x00x", "", "")
	f.Fuzz(func(t *testing.T, entrypoint, cmd, configs, database string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, "\x00")
		}
		labels := map[string]string{}
		if configs != "" {
			labels[indeximage.ConfigsLabel] = configs
		}
		if database != "" {
			labels[indeximage.DatabaseLabel] = database
		}
		s, err := classifyKubeImage("oci-layout:x", v1.Config{Entrypoint: split(entrypoint), Cmd: split(cmd), Labels: labels})
		if err != nil {
			if !strings.Contains(err.Error(), "entrypoint is") {
				t.Fatalf("a refusal that does not name the entrypoint: %v", err)
			}
			return
		}
		for _, olmPod := range []bool{false, true} {
			var out strings.Builder
			if err := writeKube(&out, kubeOptions{Image: "quay.io/me/catalog:v1", Name: "catalog", Namespace: "olm", MemoryRequest: 64 << 20, Replicas: 1, Server: s, OLMPod: olmPod}); err != nil {
				t.Fatal(err)
			}
			d := decodeKube(t, out.String())
			if (d.cc != nil) != (s.Database == "") {
				t.Errorf("ClusterCatalog written %v for a server of database %q", d.cc != nil, s.Database)
			}
			if d.dep == nil {
				if !olmPod && s.Kind != kubeServerNone {
					t.Errorf("no Deployment for a server of kind %d", s.Kind)
				}
				continue
			}
			args := strings.Join(d.dep.Spec.Template.Spec.Containers[0].Args, " ")
			if (s.Kind == kubeServerOPM || s.Kind == kubeServerOPMIndex) && strings.Contains(args, "--http-addr") {
				t.Errorf("opm given olmcat's flags: %s", args)
			}
		}
	})
}
