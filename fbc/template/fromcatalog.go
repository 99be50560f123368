package template

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// semverChannelName is how a semver template names the channels it generates.
var semverChannelName = regexp.MustCompile(`^(candidate|fast|stable)-v(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$`)

// nearSemverChannelName is a channel name a semver template would write differently:
// "candidate-0.1", "stable-V1", "fast_v1.2", "Stable-v1".
var nearSemverChannelName = regexp.MustCompile(`^(?i:(candidate|fast|stable))[-_.]?[vV]?((?:0|[1-9][0-9]*)(?:\.(?:0|[1-9][0-9]*))?)$`)

// SemverFromCatalog is the semver template that would generate the channels of one package: each
// channel named <archetype>-vX or <archetype>-vX.Y gives its bundles to the archetype, and the
// kinds of its names say which kinds of channels to generate. When no semver template can
// generate the package's channel names at all (or a bundle has no image or no semver version), it
// returns nil and why. Whether the template gives the same upgrade graph is for the caller to
// check, by rendering it.
func SemverFromCatalog(c *fbc.Catalog) (*Semver, string) {
	if len(c.Packages) != 1 {
		return nil, fmt.Sprintf("%d olm.package blobs: a semver template makes one package", len(c.Packages))
	}
	switch {
	case len(c.Deprecations) > 0:
		return nil, "the package has olm.deprecations, which a semver template cannot hold"
	case len(c.Others) > 0:
		return nil, fmt.Sprintf("the package has a blob of schema %q, which a semver template cannot hold", c.Others[0].Schema)
	case len(c.Packages[0].Properties) > 0:
		return nil, "the olm.package blob has properties, which a semver template cannot hold"
	}
	for _, ch := range c.Channels {
		if len(ch.Properties) > 0 {
			return nil, fmt.Sprintf("channel %q has properties, which a semver template cannot hold", ch.Name)
		}
	}
	versions := map[string]semver.Version{}
	images := map[string]string{}
	for _, b := range c.Bundles {
		if b.Image == "" {
			return nil, fmt.Sprintf("bundle %q has no image: a template names bundles by image", b.Name)
		}
		props, err := property.Parse(b.Properties)
		if err != nil || len(props.Packages) != 1 {
			return nil, fmt.Sprintf("bundle %q has no single olm.package property", b.Name)
		}
		v, err := semver.Parse(props.Packages[0].Version)
		if err != nil {
			return nil, fmt.Sprintf("bundle %q has version %q, not a semantic version", b.Name, props.Packages[0].Version)
		}
		versions[b.Name], images[b.Name] = v, b.Image
	}
	t := &Semver{}
	members := make([]map[string]bool, len(archetypes))
	defaultKind := ""
	for _, ch := range c.Channels {
		m := semverChannelName.FindStringSubmatch(ch.Name)
		if m == nil {
			why := fmt.Sprintf("channel %q is not named as a semver template names channels (candidate, fast or stable, then -vX or -vX.Y)", ch.Name)
			if near := nearSemverChannelName.FindStringSubmatch(ch.Name); near != nil {
				why += fmt.Sprintf("; a semver template would name it %q, and renaming a channel strands the users subscribed to it", strings.ToLower(near[1])+"-v"+near[2])
			}
			return nil, why
		}
		kind := kindMajor
		if m[3] != "" {
			kind = kindMinor
			t.GenerateMinorChannels = true
		} else {
			t.GenerateMajorChannels = true
		}
		if ch.Name == c.Packages[0].DefaultChannel {
			defaultKind = kind
		}
		a := archetypeRank(m[1])
		if members[a] == nil {
			members[a] = map[string]bool{}
		}
		for _, e := range ch.Entries {
			if _, ok := images[e.Name]; !ok {
				return nil, fmt.Sprintf("channel %q has entry %q, which is no bundle of the package", ch.Name, e.Name)
			}
			members[a][e.Name] = true
		}
	}
	if t.GenerateMajorChannels && t.GenerateMinorChannels {
		t.DefaultChannelTypePreference = defaultKind
	}
	lists := []*[]string{&t.Candidate, &t.Fast, &t.Stable}
	for a, set := range members {
		names := make([]string, 0, len(set))
		for name := range set {
			names = append(names, name)
		}
		slices.SortFunc(names, func(x, y string) int { return versions[x].Compare(versions[y]) })
		for _, name := range names {
			*lists[a] = append(*lists[a], images[name])
		}
	}
	if len(t.Candidate)+len(t.Fast)+len(t.Stable) == 0 {
		return nil, "no channel has a bundle"
	}
	return t, ""
}

// WriteSemver writes a semver template with the keys in the order and spelling of opm's
// documentation (Schema, GenerateMajorChannels, ..., Candidate/Fast/Stable: Bundles: - Image),
// as YAML or JSON.
func WriteSemver(w io.Writer, t *Semver, format string) error {
	type bundle struct {
		Image string `json:"Image"`
	}
	type bundles struct {
		Bundles []bundle `json:"Bundles"`
	}
	doc := struct {
		Schema                       string   `json:"Schema"`
		GenerateMajorChannels        bool     `json:"GenerateMajorChannels"`
		GenerateMinorChannels        bool     `json:"GenerateMinorChannels"`
		DefaultChannelTypePreference string   `json:"DefaultChannelTypePreference,omitempty"`
		Candidate                    *bundles `json:"Candidate,omitempty"`
		Fast                         *bundles `json:"Fast,omitempty"`
		Stable                       *bundles `json:"Stable,omitempty"`
	}{Schema: SchemaSemver, GenerateMajorChannels: t.GenerateMajorChannels, GenerateMinorChannels: t.GenerateMinorChannels,
		DefaultChannelTypePreference: t.DefaultChannelTypePreference}
	set := func(images []string) *bundles {
		if len(images) == 0 {
			return nil
		}
		b := &bundles{}
		for _, img := range images {
			b.Bundles = append(b.Bundles, bundle{Image: img})
		}
		return b
	}
	doc.Candidate, doc.Fast, doc.Stable = set(t.Candidate), set(t.Fast), set(t.Stable)
	switch format {
	case OutputJSON:
		data, err := json.MarshalIndent(doc, "", "    ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case OutputYAML:
	default:
		return fmt.Errorf("invalid output format %q: use json or yaml", format)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	fmt.Fprintf(&b, "Schema: %s\n", SchemaSemver)
	fmt.Fprintf(&b, "GenerateMajorChannels: %s\n", strconv.FormatBool(t.GenerateMajorChannels))
	fmt.Fprintf(&b, "GenerateMinorChannels: %s\n", strconv.FormatBool(t.GenerateMinorChannels))
	if t.DefaultChannelTypePreference != "" {
		fmt.Fprintf(&b, "DefaultChannelTypePreference: %s\n", t.DefaultChannelTypePreference)
	}
	for i, images := range [][]string{t.Candidate, t.Fast, t.Stable} {
		if len(images) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s:\n  Bundles:\n", strings.ToUpper(archetypes[i][:1])+archetypes[i][1:])
		for _, img := range images {
			q, err := yaml.Marshal(img)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "  - Image: %s\n", bytes.TrimSuffix(q, []byte{'\n'}))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// CatalogRenderer renders bundle images from the bundles a catalog already holds, by image: a
// template written from that catalog renders offline.
type CatalogRenderer struct{ byImage map[string]fbc.Bundle }

// NewCatalogRenderer indexes the bundles of c by image (the first bundle of an image wins).
func NewCatalogRenderer(c *fbc.Catalog) *CatalogRenderer {
	r := &CatalogRenderer{byImage: map[string]fbc.Bundle{}}
	for _, b := range c.Bundles {
		if _, ok := r.byImage[b.Image]; !ok && b.Image != "" {
			r.byImage[b.Image] = b
		}
	}
	return r
}

func (r *CatalogRenderer) RenderBundles(_ context.Context, refs []string) ([]fbc.Bundle, error) {
	out := make([]fbc.Bundle, 0, len(refs))
	for _, ref := range refs {
		b, ok := r.byImage[ref]
		if !ok {
			return nil, &ImageError{Ref: ref, Err: fmt.Errorf("no bundle of the catalog has this image")}
		}
		out = append(out, b)
	}
	return out, nil
}
