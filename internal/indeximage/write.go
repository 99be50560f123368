package indeximage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/olmcat/olmcat/internal/atomicout"
)

// DefaultArchiveTag names the image in a docker archive written without REPO:TAG.
const DefaultArchiveTag = "localhost/olmcat/index:latest"

// WriteImage writes img to dest and returns its manifest digest. dest is one of:
//   - a registry reference ("quay.io/ns/index:v4.12"), pushed with opts' keychain and
//     --insecure setting (layers the registry already has are not sent again);
//   - "oci-layout:DIR[:TAG]": a new OCI image layout directory, written atomically; an existing
//     non-empty DIR is replaced only with force;
//   - "docker-archive:FILE[:REPO:TAG]": a `docker load`-able archive, written atomically;
//     an existing FILE is replaced only with force.
func WriteImage(ctx context.Context, img v1.Image, dest string, force bool, opts Options) (v1.Hash, error) {
	return write(ctx, img, dest, force, opts)
}

// WriteIndex is WriteImage for a multi-arch index; a docker archive cannot hold one.
func WriteIndex(ctx context.Context, idx v1.ImageIndex, dest string, force bool, opts Options) (v1.Hash, error) {
	if strings.HasPrefix(dest, DockerArchivePrefix) {
		return v1.Hash{}, fmt.Errorf("%s: a docker archive holds single images, not a multi-arch index: write to a registry or oci-layout:DIR, or pick one platform", dest)
	}
	return write(ctx, idx, dest, force, opts)
}

// artifact is a v1.Image or a v1.ImageIndex.
type artifact interface {
	Digest() (v1.Hash, error)
}

func write(ctx context.Context, a artifact, dest string, force bool, opts Options) (v1.Hash, error) {
	digest, err := a.Digest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("compute the image digest: %w", err)
	}
	switch {
	case strings.HasPrefix(dest, OCILayoutPrefix):
		return digest, writeLayout(a, strings.TrimPrefix(dest, OCILayoutPrefix), force)
	case strings.HasPrefix(dest, DockerArchivePrefix):
		return digest, writeArchive(a.(v1.Image), strings.TrimPrefix(dest, DockerArchivePrefix), force)
	}
	ref, err := parseImageRef(dest, opts.plainHTTP())
	if err != nil {
		return v1.Hash{}, err
	}
	if idx, ok := a.(v1.ImageIndex); ok {
		err = remote.WriteIndex(ref.named, idx, opts.remoteOptions(ctx)...)
	} else {
		err = remote.Write(ref.named, a.(v1.Image), opts.remoteOptions(ctx)...)
	}
	if err != nil {
		return v1.Hash{}, fmt.Errorf("push: %w", registryError(ref, err))
	}
	return digest, nil
}

// writeLayout writes "DIR[:TAG]". Unlike a source reference, the directory does not exist yet,
// so a tag is whatever follows the last colon (when it holds no slash).
func writeLayout(a artifact, spec string, force bool) error {
	dir, tag := spec, ""
	if i := strings.LastIndex(spec, ":"); i > 0 && !strings.ContainsAny(spec[i+1:], `/\`) {
		dir, tag = spec[:i], spec[i+1:]
	}
	if dir == "" {
		return fmt.Errorf("%s%s: missing directory", OCILayoutPrefix, spec)
	}
	out, err := atomicout.Dir(dir, force)
	if err != nil {
		return err
	}
	defer out.Abort()
	lp, err := layout.Write(out.Path(), empty.Index)
	if err != nil {
		return fmt.Errorf("create OCI layout %s: %w", dir, err)
	}
	var lopts []layout.Option
	if tag != "" {
		lopts = append(lopts, layout.WithAnnotations(map[string]string{refNameAnnotation: tag}))
	}
	if idx, ok := a.(v1.ImageIndex); ok {
		err = lp.AppendIndex(idx, lopts...)
	} else {
		err = lp.AppendImage(a.(v1.Image), lopts...)
	}
	if err != nil {
		return fmt.Errorf("write OCI layout %s: %w", dir, err)
	}
	return out.Commit()
}

func writeArchive(img v1.Image, spec string, force bool) error {
	file, tagSpec := spec, DefaultArchiveTag
	if i := strings.Index(spec, ":"); i > 0 {
		file, tagSpec = spec[:i], spec[i+1:]
	}
	if file == "" {
		return fmt.Errorf("%s%s: missing file name", DockerArchivePrefix, spec)
	}
	tag, err := name.NewTag(tagSpec)
	if err != nil {
		return fmt.Errorf("%s%s: %q is not a REPO:TAG: %w", DockerArchivePrefix, spec, tagSpec, err)
	}
	out, err := atomicout.File(file, force)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := os.MkdirAll(filepath.Dir(out.Path()), 0o755); err != nil {
		return err
	}
	if err := tarball.WriteToFile(out.Path(), tag, img); err != nil {
		return fmt.Errorf("write docker archive %s: %w", file, err)
	}
	return out.Commit()
}
