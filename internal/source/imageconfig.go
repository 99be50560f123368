package source

import (
	"context"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmcat/olmcat/internal/indeximage"
)

// ImageConfig reads the configuration of the image ref (entrypoint, command, labels), reading no
// layer; an image that cannot be read is an input error worded as every command words it.
func ImageConfig(ctx context.Context, ref string, opts indeximage.Options) (v1.Config, error) {
	if p, ok := indeximage.LocalImagePath(ref); ok {
		if _, err := os.Stat(p); err != nil {
			return v1.Config{}, &Error{Ref: ref, Problem: NotFound, Detail: p + ": no such file or directory", Hint: refHint, Err: err}
		}
	}
	cfg, err := indeximage.Config(ctx, ref, opts)
	if err != nil {
		return v1.Config{}, imageError(ref, err)
	}
	return cfg, nil
}
