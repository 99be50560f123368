package indeximage

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// baseHistoryComment marks the history entries made up for base layers whose own history cannot
// be lined up with them (none recorded, as ko, crane or buildah --omit-history leave it, or an
// entry count that does not match the layers).
const baseHistoryComment = "base image layer; the base image records no history for it"

// keptBaseLayers returns the base layers to keep, each with its history entry, interleaved with
// the base's empty-layer entries (ENV, LABEL...) in their places; the entries of a dropped layer
// go with it. A history that does not line up with the layers (one non-empty_layer entry each,
// in order) is replaced by one made-up entry per kept layer, so that tools pairing history
// entries with layers (docker history, buildkit) find one per layer.
func keptBaseLayers(base v1.Image, cf *v1.ConfigFile, removed string, known []v1.Hash) ([]mutate.Addendum, error) {
	layers, err := base.Layers()
	if err != nil {
		return nil, fmt.Errorf("base image: list layers: %w", err)
	}
	m, err := base.Manifest()
	if err != nil {
		return nil, fmt.Errorf("base image: read manifest: %w", err)
	}
	if len(m.Layers) != len(layers) {
		return nil, fmt.Errorf("base image: the manifest lists %d layers but the image has %d: the image is malformed; rebuild it", len(m.Layers), len(layers))
	}
	knownDB := map[v1.Hash]bool{}
	for _, h := range known {
		knownDB[h] = true
	}
	nonEmpty := 0
	for _, h := range cf.History {
		if !h.EmptyLayer {
			nonEmpty++
		}
	}
	history := cf.History
	if nonEmpty != len(layers) {
		history = nil
	}
	var adds []mutate.Addendum
	hi := 0
	for i, l := range layers {
		if !tarLayerMediaType(m.Layers[i].MediaType) {
			return nil, fmt.Errorf("base image: layer %d of %d (%s) has media type %q, which is not a tar layer: an index image is built from tar layers only", i+1, len(layers), m.Layers[i].Digest, m.Layers[i].MediaType)
		}
		entry := v1.History{Created: cf.Created, Comment: baseHistoryComment}
		for ; hi < len(history); hi++ {
			if !history[hi].EmptyLayer {
				entry = history[hi]
				hi++
				break
			}
			adds = append(adds, mutate.Addendum{History: history[hi]}) // kept even when the layer is dropped
		}
		drop, err := holdsOnlyDatabase(l, i < len(cf.RootFS.DiffIDs) && knownDB[cf.RootFS.DiffIDs[i]], removed)
		if err != nil {
			return nil, fmt.Errorf("base image: layer %d of %d: %w", i+1, len(layers), err)
		}
		if !drop {
			adds = append(adds, mutate.Addendum{Layer: l, MediaType: m.Layers[i].MediaType, History: entry})
		}
	}
	for _, h := range history[hi:] {
		adds = append(adds, mutate.Addendum{History: h})
	}
	return adds, nil
}

// holdsOnlyDatabase reads a layer's headers until the first entry outside the removed path; a
// base-image layer stops at its first entry, the database layer is read through.
func holdsOnlyDatabase(l v1.Layer, known bool, removed string) (bool, error) {
	if known {
		return true, nil
	}
	if removed == "" {
		return false, nil
	}
	rc, err := l.Uncompressed()
	if err != nil {
		return false, err
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	inside := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return inside > 0, nil
		}
		if err != nil {
			return false, fmt.Errorf("read tar stream: %w", err)
		}
		name, err := cleanEntryName(hdr.Name)
		if err != nil {
			return false, fmt.Errorf("entry %q: %w", hdr.Name, err)
		}
		switch databaseEntry(name, removed) {
		case entryInside:
			inside++
		case entryOutside:
			return false, nil
		}
	}
}

type entryPlace int

const (
	entryNeutral entryPlace = iota // the filesystem root or a parent of the database directory
	entryInside
	entryOutside
)

// databaseEntry places a cleaned layer entry name relative to the database path removed.
func databaseEntry(name, removed string) entryPlace {
	switch {
	case name == "" || strings.HasPrefix(removed, name+"/"):
		return entryNeutral
	case name == removed || strings.HasPrefix(name, removed+"/") || name == path.Join(parentOf(removed), ".wh."+path.Base(removed)):
		return entryInside
	}
	return entryOutside
}
