package source

import (
	"context"

	"github.com/olmcat/olmcat/fbc"
)

// WalkJSON is Walk for a consumer that decodes or normalizes the blobs it is given (the HTTP API's
// store): an index.db's blobs come encoded by fbc.EachBlobJSON, as olmcat migrate writes them,
// instead of by encoding/json as Walk encodes them (compact, HTML escaped). The values are the
// same; the bytes differ in white space and escapes, and cost a fraction of the time. Blob.Data is
// only valid during the call. Any other catalog is walked as Walk walks it.
func (s *Source) WalkJSON(ctx context.Context, fn func(fbc.Blob) error) error {
	if s.format != FormatSQLite {
		return s.Walk(ctx, fn)
	}
	return s.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error {
		return fbc.EachBlobJSON(c, func(b fbc.Blob) error {
			b.Data = append(b.Data[:len(b.Data):len(b.Data)], []byte(" ")...)
			return fn(b)
		})
	})
}
