package main

import (
	"fmt"

	"github.com/olmcat/olmcat/internal/imageref"
)

// checkImageFlags refuses an --image that is not an image reference (issue 35 item 3): it would
// become a bundle's image, which validate refuses and which no image list may carry.
func checkImageFlags(images []string) error {
	for _, img := range images {
		if p := imageref.Problem(img); p != "" {
			return usageError{fmt.Errorf("--image %s is not an image reference: %s; give one, e.g. quay.io/ns/bundle:v1.0.0", imageref.Quote(img), p)}
		}
	}
	return nil
}
