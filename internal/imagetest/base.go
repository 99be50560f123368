package imagetest

import (
	"crypto/rand"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// BaseIndex is a multi-arch base image index as opm's or olmcat's is published: for each
// platform ("linux/arm64", "linux/arm/v7") an image of one layer holding a random "binary" at
// binary (e.g. bin/opm; different bytes per platform), whose config runs entrypoint and cmd; plus
// a buildx attestation manifest (unknown/unknown), which is no platform of the base.
func BaseIndex(t testing.TB, binary string, entrypoint, cmd []string, platforms ...string) v1.ImageIndex {
	t.Helper()
	return BaseIndexUser(t, "", binary, entrypoint, cmd, platforms...)
}

// BaseIndexUser is BaseIndex whose images run as user (USER 1001, as opm's image does).
func BaseIndexUser(t testing.TB, user, binary string, entrypoint, cmd []string, platforms ...string) v1.ImageIndex {
	t.Helper()
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		plat, err := v1.ParsePlatform(p)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, 512)
		if _, err := rand.Read(data); err != nil {
			t.Fatal(err)
		}
		img := Image(t, map[string][]byte{binary: data, "etc/passwd": []byte("root:x:0:0::/:/sbin/nologin\n")}, map[string]string{"base.platform": p})
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture, cf.Variant = plat.OS, plat.Architecture, plat.Variant
		cf.Config.Entrypoint, cf.Config.Cmd = entrypoint, cmd
		cf.Config.Env = []string{"PATH=/bin"}
		cf.Config.User = user
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			t.Fatal(err)
		}
		img = mutate.ConfigMediaType(mutate.MediaType(img, types.OCIManifestSchema1), types.OCIConfigJSON)
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: plat}})
	}
	att := mutate.ConfigMediaType(mutate.MediaType(Image(t, map[string][]byte{"sbom.json": []byte("{}")}, nil), types.OCIManifestSchema1), types.OCIConfigJSON)
	adds = append(adds, mutate.IndexAddendum{Add: att, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "unknown", Architecture: "unknown"},
		Annotations: map[string]string{"vnd.docker.reference.type": "attestation-manifest"}}})
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
}

// OCILayoutIndex writes idx as a new OCI layout under a temporary directory and returns its
// reference (oci-layout:DIR).
func OCILayoutIndex(t testing.TB, idx v1.ImageIndex) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "base")
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx); err != nil {
		t.Fatal(err)
	}
	return indeximage.OCILayoutPrefix + dir
}

// PushIndex pushes idx to ref, a reference into a test registry.
func PushIndex(t testing.TB, ref string, idx v1.ImageIndex) {
	t.Helper()
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(r, idx); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
}
