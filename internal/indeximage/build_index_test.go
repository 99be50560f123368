package indeximage

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func TestBuildFBCIndexKeepsEveryPlatform(t *testing.T) {
	needFile(t, migratedFixture)
	arm := v1.Platform{OS: "linux", Architecture: "arm64"}
	unknown := v1.Platform{OS: "unknown", Architecture: "unknown"}
	attestation := imageWith(t, nil, unknown, layerOf(t, file("provenance.json", "{}")))
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: sqliteImage(t, amd64), Descriptor: v1.Descriptor{Platform: &amd64}},
		mutate.IndexAddendum{Add: sqliteImage(t, arm), Descriptor: v1.Descriptor{Platform: &arm}},
		mutate.IndexAddendum{Add: attestation, Descriptor: v1.Descriptor{Platform: &unknown,
			Annotations: map[string]string{"vnd.docker.reference.type": "attestation-manifest"}}})
	host := startRegistry(t, nil)
	ref, _ := name.ParseReference(host + "/ns/multi:v1")
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatal(err)
	}
	src, err := fetch(t, ref.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if src.Index == nil {
		t.Fatal("Fetch of a multi-arch index did not return the index")
	}
	built, err := BuildFBCIndex(src.Index, migratedFixture, BuildOptions{DatabaseLayers: src.DatabaseLayers})
	if err != nil {
		t.Fatal(err)
	}
	im, err := built.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 || im.Manifests[0].Platform.String() != "linux/amd64" || im.Manifests[1].Platform.String() != "linux/arm64" {
		t.Fatalf("built index has %d manifests %v, want linux/amd64 and linux/arm64", len(im.Manifests), im.Manifests)
	}
	var configsLayers []v1.Hash
	for _, d := range im.Manifests {
		img, err := built.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		layers, _ := img.Layers()
		configsLayers = append(configsLayers, mustDigest(t, layers[len(layers)-1]))
	}
	if configsLayers[0] != configsLayers[1] {
		t.Errorf("platforms got different configs layers %v", configsLayers)
	}

	for _, dest := range []string{host + "/ns/multi:v1-fbc", "oci-layout:" + t.TempDir() + "/out:v1"} {
		if _, err := WriteIndex(context.Background(), built, dest, false, Options{}); err != nil {
			t.Fatalf("%s: %v", dest, err)
		}
		cat, err := fetch(t, dest, Options{Platform: "linux/arm64"})
		if err != nil {
			t.Fatalf("%s: %v", dest, err)
		}
		if cf, _ := cat.Image.ConfigFile(); cat.Kind != FBC || cf.Architecture != "arm64" {
			t.Errorf("%s: read back %v for %s", dest, cat.Kind, cf.Architecture)
		}
	}
	_, err = WriteIndex(context.Background(), built, "docker-archive:"+t.TempDir()+"/x.tar", false, Options{})
	if err == nil || !strings.Contains(err.Error(), "multi-arch") {
		t.Errorf("index into a docker archive: %v", err)
	}
}
