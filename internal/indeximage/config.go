package indeximage

import (
	"context"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Config resolves ref and returns its image's configuration (entrypoint, command, labels),
// reading no layer.
func Config(ctx context.Context, ref string, opts Options) (v1.Config, error) {
	res, err := resolveRef(ctx, ref, opts)
	if err != nil {
		return v1.Config{}, err
	}
	cf, err := res.img.ConfigFile()
	if err != nil || cf == nil {
		return v1.Config{}, fmt.Errorf("%s: read image config: %v", res.where, err)
	}
	return cf.Config, nil
}
