package fbcbackend

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// ListBundles streams one bundle per (bundle, channel), sorted by channel, package and bundle name
// as opm does, with the entry's replaces and skips and without manifests for bundles that have an
// image.
func (b *Backend) ListBundles(ctx context.Context, send func(*api.Bundle) error) error {
	for _, k := range b.list {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := b.bundle(k.pkg, k.ch, k.entry, false)
		if err != nil {
			return err
		}
		if err := send(out); err != nil {
			return err
		}
	}
	return nil
}

// ListPackageCustomSchemas sends, in catalog order, the blobs of the schema that belong to the
// package ("" selects blobs with no package), as normalized JSON objects.
func (b *Backend) ListPackageCustomSchemas(ctx context.Context, schema, packageName string, send func(*structpb.Struct) error) error {
	for _, g := range b.ix.Metas {
		if g.Schema != schema || g.Package != packageName {
			continue
		}
		for _, r := range g.Blobs {
			if err := ctx.Err(); err != nil {
				return err
			}
			raw, err := b.store.read(r)
			if err != nil {
				return err
			}
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				return fmt.Errorf("schema %q blob: %w", schema, err)
			}
			s, err := structpb.NewStruct(m)
			if err != nil {
				return fmt.Errorf("schema %q blob: %w", schema, err)
			}
			if err := send(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// ListBundlesRaw is ListBundles in wire form: a bundle with an image is its stored encoding, sent
// as it is, followed by the channel's fields (protobuf allows fields in any order), so the stream
// costs one small allocation per bundle instead of a decode and an encode, and a client that does
// not read keeps only those small parts queued, not a copy of each bundle.
func (b *Backend) ListBundlesRaw(ctx context.Context, send func(api.PreEncoded) error) error {
	for _, k := range b.list {
		if err := ctx.Err(); err != nil {
			return err
		}
		bi := b.ix.Bundles[k.entry.Bundle]
		var msg api.PreEncoded
		if bi.HasImage {
			msg = api.PreEncoded{bi.Light, appendChannelFields(make([]byte, 0, channelFieldsSize(k)), k, bi.Deprecation)}
		} else {
			out, err := b.bundle(k.pkg, k.ch, k.entry, false)
			if err != nil {
				return err
			}
			enc, err := proto.Marshal(out)
			if err != nil {
				return err
			}
			msg = api.PreEncoded{enc}
		}
		if err := send(msg); err != nil {
			return err
		}
	}
	return nil
}

// Field numbers of api.Bundle set per channel.
const (
	fieldChannelName = 3
	fieldSkipRange   = 10
	fieldReplaces    = 13
	fieldSkips       = 14
	fieldDeprecation = 15
	fieldMessage     = 1 // api.Deprecation.message
)

func channelFieldsSize(k listKey) int {
	n := 16 + len(k.ch.Name) + len(k.entry.SkipRange) + len(k.entry.Replaces)
	for _, s := range k.entry.Skips {
		n += 8 + len(s)
	}
	return n + 64
}

func appendChannelFields(buf []byte, k listKey, dep *string) []byte {
	str := func(num protowire.Number, s string) {
		if s != "" {
			buf = protowire.AppendTag(buf, num, protowire.BytesType)
			buf = protowire.AppendString(buf, s)
		}
	}
	str(fieldChannelName, k.ch.Name)
	str(fieldSkipRange, k.entry.SkipRange)
	str(fieldReplaces, k.entry.Replaces)
	for _, s := range k.entry.Skips {
		buf = protowire.AppendTag(buf, fieldSkips, protowire.BytesType)
		buf = protowire.AppendString(buf, s)
	}
	if dep != nil {
		var inner []byte
		if *dep != "" {
			inner = protowire.AppendTag(inner, fieldMessage, protowire.BytesType)
			inner = protowire.AppendString(inner, *dep)
		}
		buf = protowire.AppendTag(buf, fieldDeprecation, protowire.BytesType)
		buf = protowire.AppendBytes(buf, inner)
	}
	return buf
}
