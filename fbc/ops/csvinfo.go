package ops

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// csvInfo is what a bundle's CSV says about its place in the upgrade graph, and its icon.
type csvInfo struct {
	Replaces  string
	Skips     []string
	SkipRange string
	Icon      *fbc.Icon
}

// csvInfoOf reads the CSV a bundle carries as an olm.bundle.object; ok is false when it carries
// none (olm.csv.metadata has no graph data).
func csvInfoOf(b *fbc.Bundle) (info csvInfo, ok bool) {
	for _, p := range b.Properties {
		if p.Type != property.TypeBundleObject {
			continue
		}
		var obj property.BundleObject
		if err := json.Unmarshal(p.Value, &obj); err != nil || len(obj.Data) == 0 {
			continue
		}
		var csv struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Annotations map[string]any `json:"annotations"`
			} `json:"metadata"`
			Spec struct {
				Replaces string   `json:"replaces"`
				Skips    []string `json:"skips"`
				Icon     []struct {
					Data      string `json:"base64data"`
					MediaType string `json:"mediatype"`
				} `json:"icon"`
			} `json:"spec"`
		}
		if json.Unmarshal(obj.Data, &csv) != nil || csv.Kind != "ClusterServiceVersion" {
			continue
		}
		info = csvInfo{Replaces: csv.Spec.Replaces, Skips: csv.Spec.Skips}
		if sr, isString := csv.Metadata.Annotations["olm.skipRange"].(string); isString {
			info.SkipRange = sr
		}
		if len(csv.Spec.Icon) > 0 {
			icon := csv.Spec.Icon[0]
			if data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(icon.Data), "")); err == nil {
				info.Icon = &fbc.Icon{Data: data, MediaType: icon.MediaType}
			}
		}
		return info, true
	}
	return csvInfo{}, false
}

// FromBlob makes a NewBundle of an olm.bundle blob taken from another catalog or a rendered file.
// The graph data (replaces, skips, skipRange) and the package look come from the CSV when the blob
// carries it; channels must be given, a blob does not know them.
func FromBlob(b fbc.Bundle, channels []string, defaultChannel string) NewBundle {
	nb := NewBundle{Blob: b, Channels: channels, DefaultChannel: defaultChannel}
	if info, ok := csvInfoOf(&b); ok {
		nb.Replaces, nb.Skips, nb.SkipRange = info.Replaces, info.Skips, info.SkipRange
		nb.Icon = info.Icon
	}
	return nb
}
