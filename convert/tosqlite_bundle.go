package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/sqlite"
)

// sqliteBundle is a bundle's operatorbundle row plus what the package conversion needs to know
// about its CSV.
type sqliteBundle struct {
	row sqlite.BundleOut
	// csvIcon is the icon opm would read back for the package if this bundle headed the default
	// channel (spec.icon[0] of the stored CSV); hasCSV says whether a CSV is stored at all.
	csvIcon *fbc.Icon
	hasCSV  bool
}

// bundleToSQLite builds the rows of one bundle (docs/sqlite-fbc-mapping.md §5.3 items 4-8).
func bundleToSQLite(pkg *model.Package, b *model.Bundle, r *SQLiteReport) (*sqliteBundle, error) {
	at := Finding{Package: pkg.Name, Bundle: b.Name}
	props, err := property.Parse(b.Properties)
	if err != nil {
		return nil, fmt.Errorf("bundle %q: %w", b.Name, err)
	}
	channels := channelsWithEntry(pkg, b.Name)
	out := &sqliteBundle{row: sqlite.BundleOut{
		Name:       b.Name,
		BundlePath: b.Image,
		Version:    b.VersionString,
		SkipRange:  sqliteSkipRange(pkg, b.Name, channels, r),
	}}
	row := &out.row

	m := readStoredManifests(props.BundleObjects, at, r)
	var csv *storedObject
	switch {
	case m.csv != nil:
		csv = m.csvInfo
		row.CSV = append(append([]byte(nil), m.csv...), '\n')
		row.Replaces = csv.Spec.Replaces
		row.Skips = strings.Join(csv.Spec.Skips, ",")
		row.SubstitutesFor = csv.Metadata.Annotations["olm.substitutesFor"]
		if len(props.CSVMetadatas) > 0 {
			f := at
			f.Kind, f.Detail = KindCSVMetadataDropped, "the bundle has both a CSV object and olm.csv.metadata; the CSV object is stored (opm serves it too) and olm.csv.metadata is not"
			r.change(f)
		}
	case len(props.CSVMetadatas) > 0:
		var meta csvmeta.Metadata
		if err := json.Unmarshal(props.CSVMetadatas[0], &meta); err != nil {
			return nil, fmt.Errorf("bundle %q: olm.csv.metadata: %w", b.Name, err)
		}
		csv = &storedObject{Kind: "ClusterServiceVersion"}
		csv.Spec.CRDs, csv.Spec.APIServices = refsOf(meta.CRDDescriptions, meta.APIServiceDefinitions)
		for _, ri := range b.RelatedImages {
			csv.Spec.RelatedImages = append(csv.Spec.RelatedImages, csvmeta.RelatedImage{Name: ri.Name, Image: ri.Image})
		}
		synth, err := csvmeta.SynthesizeCSV(meta,
			csvmeta.Bundle{Name: b.Name, Version: b.Version.String(), RelatedImages: csv.Spec.RelatedImages},
			csvmeta.Package{Description: pkg.Description, Icon: packageIcon(pkg.Icon)})
		if err != nil {
			return nil, fmt.Errorf("bundle %q: synthesize CSV: %w", b.Name, err)
		}
		m.addDescriptionPlurals(csv.Spec.CRDs.Owned, csv.Spec.APIServices.Owned)
		m.objects = append(m.objects, synth)
		row.CSV = append(append([]byte(nil), synth...), '\n')
		row.Replaces, row.Skips = entryEdgesForColumns(pkg, b.Name, channels)
		out.csvIcon = pkg.Icon
		f := at
		f.Kind, f.Detail = KindCSVSynthesized, "no CSV object: the CSV is synthesized from olm.csv.metadata as opm serve does (metadata, name, version, package icon, stub install strategy, related images); index.db → FBC gives it back as an olm.bundle.object"
		r.change(f)
	default:
		row.Replaces, row.Skips = entryEdgesForColumns(pkg, b.Name, channels)
		if len(m.objects) > 0 {
			f := at
			f.Kind, f.Detail = KindObjectsWithoutCSV, fmt.Sprintf("%d bundle objects but no ClusterServiceVersion among them and no olm.csv.metadata; opm's readers refuse a bundle column without a CSV, so the objects are not stored", len(m.objects))
			r.loss(f)
			m.objects = nil
		}
	}
	row.Bundle = bundleColumnBytes(m.objects)
	out.hasCSV = row.CSV != nil
	if csv != nil && m.csv != nil {
		out.csvIcon = storedObjectIcon(csv)
	}

	row.Properties, row.Dependencies = sqlitePropertyRows(b, at, r)
	row.ProvidedAPIs, row.RequiredAPIs = sqliteAPIRows(props, m, csv)
	row.RelatedImages = sqliteRelatedImages(b, csv, at, r)
	return out, nil
}

// sqliteSkipRange is the operatorbundle.skiprange of a bundle: one value for all its channels.
// When the channels disagree, the default channel's (else the first channel's) value is kept and
// the difference reported.
func sqliteSkipRange(pkg *model.Package, bundle string, channels []*model.Channel, r *SQLiteReport) string {
	if len(channels) == 0 {
		return ""
	}
	chosen := channels[0]
	values := map[string][]string{}
	for _, ch := range channels {
		if ch.Name == pkg.DefaultChannel {
			chosen = ch
		}
		sr := ch.Entries[bundle].SkipRange
		values[sr] = append(values[sr], ch.Name)
	}
	keep := chosen.Entries[bundle].SkipRange
	if len(values) > 1 {
		var parts []string
		for sr, chs := range values {
			parts = append(parts, fmt.Sprintf("%q in %s", sr, strings.Join(chs, ", ")))
		}
		sort.Strings(parts)
		r.loss(Finding{Kind: KindSkipRangePerChannel, Package: pkg.Name, Bundle: bundle,
			Detail: fmt.Sprintf("skipRange differs between channels (%s); index.db holds one per bundle: kept %q (channel %s)", strings.Join(parts, "; "), keep, chosen.Name)})
	}
	return keep
}

// entryEdgesForColumns gives the operatorbundle replaces/skips columns (which only future loader
// runs read) from the channel entries when there is no CSV to take them from.
func entryEdgesForColumns(pkg *model.Package, bundle string, channels []*model.Channel) (string, string) {
	if len(channels) == 0 {
		return "", ""
	}
	chosen := channels[0]
	for _, ch := range channels {
		if ch.Name == pkg.DefaultChannel {
			chosen = ch
		}
	}
	e := chosen.Entries[bundle]
	return e.Replaces, strings.Join(e.Skips, ",")
}

// packageIcon is the icon a synthesized CSV carries for a package icon (nil for none).
func packageIcon(icon *fbc.Icon) *csvmeta.Icon {
	if icon == nil {
		return nil
	}
	return csvmeta.IconOf(icon.Data, icon.MediaType)
}

func storedObjectIcon(csv *storedObject) *fbc.Icon {
	if len(csv.Spec.Icon) == 0 {
		return nil
	}
	data, ok := decodeCSVIcon(csv.Spec.Icon[0].Data)
	if !ok || len(data) == 0 {
		return nil
	}
	return &fbc.Icon{Data: data, MediaType: csv.Spec.Icon[0].MediaType}
}

// sqlitePropertyRows splits the FBC properties into `properties` and `dependencies` rows (§5.3 items
// 5-6). Values are stored compact with their escapes as written, except olm.gvk values, which opm's
// provider queries match as the exact string json.Marshal makes of {group, kind, version}.
func sqlitePropertyRows(b *model.Bundle, at Finding, r *SQLiteReport) (props, deps []sqlite.PropertyOut) {
	seenProp, seenDep := map[string]bool{}, map[string]bool{}
	add := func(list *[]sqlite.PropertyOut, seen map[string]bool, typ, value string) {
		key := typ + "\x00" + value
		if seen[key] {
			f := at
			f.Kind, f.Detail = KindDuplicateProperty, fmt.Sprintf("%s %s appears more than once; index.db keeps it once", typ, value)
			r.loss(f)
			return
		}
		seen[key] = true
		*list = append(*list, sqlite.PropertyOut{Type: typ, Value: value})
	}
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypeBundleObject, property.TypeCSVMetadata:
		case property.TypeGVK:
			add(&props, seenProp, p.Type, sqliteGVKValue(p.Value, at, r))
		case property.TypeGVKRequired:
			add(&deps, seenDep, property.TypeGVK, sqliteGVKValue(p.Value, at, r))
		case property.TypePackageRequired:
			var v property.PackageRequired
			_ = json.Unmarshal(p.Value, &v)
			enc, _ := json.Marshal(struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}{v.PackageName, v.VersionRange})
			add(&deps, seenDep, property.TypePackage, string(enc))
		default:
			if p.Type == property.TypeDeprecated {
				f := at
				f.Kind, f.Detail = KindDeprecatedProperty, "the bundle carries an olm.deprecated property: it is stored and served, but opm migrate of the index.db drops bundles that have it"
				r.loss(f)
			}
			add(&props, seenProp, p.Type, sqliteCompactValue(p.Value))
		}
	}
	return props, deps
}

func sqliteGVKValue(raw json.RawMessage, at Finding, r *SQLiteReport) string {
	var g property.GVK
	_ = json.Unmarshal(raw, &g)
	enc, _ := json.Marshal(g)
	if sqliteCompactValue(raw) != string(enc) {
		f := at
		f.Kind, f.Detail = KindGVKCanonicalized, fmt.Sprintf("olm.gvk value %s stored as %s, the form opm's provider queries match", sqliteCompactValue(raw), enc)
		r.change(f)
	}
	return string(enc)
}

func sqliteCompactValue(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// sqliteAPIRows gives the api / api_provider / api_requirer content (§5.3 item 7). A GVK whose plural
// nothing in the bundle names gets no rows: api.plural is NOT NULL, and the loader writes none for
// such GVKs either (those of dependencies.yaml).
func sqliteAPIRows(props *property.Parsed, m storedManifests, csv *storedObject) (provided, required []sqlite.APIOut) {
	seen := map[property.GVK]bool{}
	for _, g := range props.GVKs {
		if plural, ok := m.plurals[g]; ok && !seen[g] {
			seen[g] = true
			provided = append(provided, sqlite.APIOut{Group: g.Group, Version: g.Version, Kind: g.Kind, Plural: plural})
		}
	}
	if csv == nil {
		return provided, nil
	}
	plurals := requiredAPIPlurals(csv.Spec.CRDs.Required, csv.Spec.APIServices.Required)
	seen = map[property.GVK]bool{}
	for _, g := range props.GVKsRequired {
		if plural, ok := plurals[g]; ok && !seen[g] {
			seen[g] = true
			required = append(required, sqlite.APIOut{Group: g.Group, Version: g.Version, Kind: g.Kind, Plural: plural})
		}
	}
	return provided, required
}
