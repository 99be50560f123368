package tofbc

import (
	"fmt"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/sqlite"
)

// bundleBuild is one bundle of the package being converted.
type bundleBuild struct {
	name        string
	row         *sqlite.BundleRow
	version     string
	semver      *semver.Version
	skipRange   string
	recovered   bool // the version came from the CSV
	image       string
	objects     [][]byte
	csvJSON     []byte // the first ClusterServiceVersion among the objects
	objectsRead bool   // objects and csvJSON are set (readObjects)
	deprecated  bool
	blob        fbc.Bundle
}

// buildBundles builds every bundle that opm's ListBundles would return for the package.
func (pc *packageConverter) buildBundles() error {
	pc.bundles = map[string]*bundleBuild{}
	seen := map[string]bool{}
	for _, s := range pc.data.Served {
		if !s.Exists || seen[s.Bundle] {
			continue
		}
		seen[s.Bundle] = true
		b, err := pc.buildBundle(pc.data.Bundles[s.Bundle])
		if err != nil {
			return err
		}
		if b != nil {
			pc.bundles[b.name] = b
		}
	}
	return nil
}

// buildBundle returns nil when the bundle cannot be written at all (the departure says why). With
// Options.DeferBundles it decides only that and what the graph needs (version, skip range), reading
// the manifests only where those come from the CSV; BuildBundles builds the rest.
func (pc *packageConverter) buildBundle(row *sqlite.BundleRow) (*bundleBuild, error) {
	b := &bundleBuild{name: row.Name, row: row}
	if !pc.deferBundles {
		if err := pc.readObjects(b); err != nil {
			return nil, err
		}
	}
	if err := pc.resolveVersion(b); err != nil || b.semver == nil {
		return nil, err
	}
	if err := pc.resolveSkipRange(b); err != nil {
		return nil, err
	}
	b.image = row.BundlePath.String
	if !row.BundlePath.Valid {
		pc.depart(Departure{Code: ImageMissing, Bundle: row.Name,
			Opm:    "drops the bundle silently (its bundlepath is NULL, as in files older than schema 2)",
			Olmcat: `writes the bundle with image ""`})
	}
	if b.image == "" {
		if err := pc.readObjects(b); err != nil {
			return nil, err
		}
		if len(b.objects) == 0 {
			pc.depart(Departure{Code: BundleDropped, Bundle: row.Name,
				Opm:    "fails: bundle image must be set",
				Olmcat: "leaves the bundle out: it has neither an image nor manifests"})
			return nil, nil
		}
	}
	if pc.deferBundles {
		b.deprecated = row.Deprecated // as bundleProperties will find it
		return b, nil
	}
	pc.buildContents(b)
	return b, nil
}

// buildContents builds the bundle's blob: its properties and related images.
func (pc *packageConverter) buildContents(b *bundleBuild) {
	props := pc.bundleProperties(b)
	related := pc.relatedImages(b)
	b.blob = fbc.Bundle{Schema: fbc.SchemaBundle, Name: b.name, Package: pc.data.Name, Image: b.image,
		Properties: props, RelatedImages: related}
}

// readObjects splits the bundle column into manifests and finds the CSV among them, once; with
// Options.DeferBundles it reads the bundle's contents first.
func (pc *packageConverter) readObjects(b *bundleBuild) error {
	if b.objectsRead {
		return nil
	}
	b.objectsRead = true
	if pc.deferBundles {
		if err := pc.db.ReadBundleContents(pc.ctx, pc.data, []string{b.name}); err != nil {
			return err
		}
	}
	row := b.row
	if len(row.Blob) == 0 {
		return nil
	}
	objs, err := sqlite.SplitObjects(row.Blob)
	if err != nil {
		pc.depart(Departure{Code: BundleObjectsUnreadable, Bundle: row.Name,
			Opm:    "fails to parse the bundle column: " + err.Error(),
			Olmcat: "writes the bundle without its manifests"})
		return nil
	}
	b.objects = objs
	b.csvJSON = csvmeta.FindCSV(objs)
	if b.csvJSON == nil {
		pc.depart(Departure{Code: CSVMissing, Bundle: row.Name,
			Opm:    "fails: no csv in bundle",
			Olmcat: "writes the bundle's manifests without a ClusterServiceVersion"})
	}
	return nil
}

// BuildBundles builds the bundles named of a package converted with Options.DeferBundles
// (fbc.BundleBuilder): it reads their contents, and builds them as Convert would have. The
// departures found on the way are not reported (the package's report was handed over with it).
func (pc *packageConverter) BuildBundles(names []string) ([]fbc.Bundle, error) {
	pc.report = &Report{}
	if err := pc.db.ReadBundleContents(pc.ctx, pc.data, names); err != nil {
		return nil, fmt.Errorf("package %q: %w", pc.data.Name, err)
	}
	out := make([]fbc.Bundle, 0, len(names))
	for _, name := range names {
		b := pc.bundles[name]
		if b == nil {
			return nil, fmt.Errorf("package %q has no bundle %q to build", pc.data.Name, name)
		}
		if err := pc.readObjects(b); err != nil {
			return nil, fmt.Errorf("package %q: %w", pc.data.Name, err)
		}
		if b.blob.Name == "" {
			pc.buildContents(b)
			if pc.opts.MigrateLevel == LevelCSVMetadata {
				pc.csvMetadata(b)
			}
		}
		out = append(out, b.blob)
	}
	return out, nil
}

// resolveVersion sets the bundle's version from the version column, or from the CSV where opm would
// have dropped the bundle (NULL) or failed (empty or not semver).
func (pc *packageConverter) resolveVersion(b *bundleBuild) error {
	col := b.row.Version
	if col.Valid && col.String != "" {
		if v, err := semver.Parse(col.String); err == nil {
			b.version, b.semver = col.String, &v
			return nil
		}
	}
	var opm string
	switch {
	case !col.Valid:
		opm = "drops the bundle silently: its version column is NULL (as migration 005 leaves it in old files)"
	case col.String == "":
		opm = `fails: convert bundle: parse version "": Version string empty`
	default:
		opm = fmt.Sprintf("fails: convert bundle: parse version %q", col.String)
	}
	csvVersion, err := pc.csvVersion(b)
	if err != nil {
		return err
	}
	if v, err := semver.Parse(csvVersion); err == nil && csvVersion != "" {
		b.version, b.semver, b.recovered = csvVersion, &v, true
		pc.depart(Departure{Code: VersionRecovered, Bundle: b.name, Opm: opm,
			Olmcat: fmt.Sprintf("uses the CSV's spec.version %q (in the olm.package property too)", csvVersion)})
		return nil
	}
	pc.depart(Departure{Code: BundleDropped, Bundle: b.name, Opm: opm,
		Olmcat: "leaves the bundle out: neither the version column nor the CSV has a semver version"})
	return nil
}

// resolveSkipRange takes the skiprange column, or, where it is NULL (files from before schema 5, where
// migration 005 never filled it in), the CSV's olm.skipRange annotation.
func (pc *packageConverter) resolveSkipRange(b *bundleBuild) error {
	b.skipRange = b.row.SkipRange.String
	if b.row.SkipRange.Valid {
		return nil
	}
	fields, err := pc.csvFields(b)
	if err != nil || fields == nil || fields.SkipRange == "" {
		return err
	}
	b.skipRange = fields.SkipRange
	pc.depart(Departure{Code: SkipRangeRecovered, Bundle: b.name,
		Opm:    "loses the skipRange: the skiprange column is NULL (as migration 005 leaves it in old files)",
		Olmcat: fmt.Sprintf("uses the CSV's olm.skipRange annotation %q", fields.SkipRange)})
	return nil
}

func (pc *packageConverter) csvVersion(b *bundleBuild) (string, error) {
	fields, err := pc.csvFields(b)
	if err != nil || fields == nil {
		return "", err
	}
	return fields.Version, nil
}

// csvFields parses the bundle's CSV (from the bundle column, else the csv column); nil when there is
// none or it does not parse.
func (pc *packageConverter) csvFields(b *bundleBuild) (*sqlite.CSVFields, error) {
	if err := pc.readObjects(b); err != nil {
		return nil, err
	}
	csv := b.csvJSON
	if csv == nil && b.row.HasCSV {
		var err error
		if csv, err = pc.db.BundleCSV(pc.ctx, b.name); err != nil {
			return nil, err
		}
	}
	if csv == nil {
		return nil, nil
	}
	fields, err := sqlite.ParseCSVFields(csv)
	if err != nil {
		return nil, nil
	}
	return fields, nil
}

// relatedImages merges the CSV's spec.relatedImages (with names) and the related_image rows (without),
// sorted by image, as opm's render does.
func (pc *packageConverter) relatedImages(b *bundleBuild) []fbc.RelatedImage {
	fromCSV, err := sqlite.CSVRelatedImages(b.csvJSON)
	if err != nil {
		pc.depart(Departure{Code: RelatedImagesUnreadable, Bundle: b.name,
			Opm:    "fails: get related images: " + err.Error(),
			Olmcat: "uses only the related_image rows"})
		fromCSV = nil
	}
	var out []fbc.RelatedImage
	inCSV := map[string]bool{}
	for _, ri := range fromCSV {
		out = append(out, fbc.RelatedImage{Name: ri.Name, Image: ri.Image})
		inCSV[ri.Image] = true
	}
	for _, img := range b.row.RelatedImages {
		if inCSV[img] {
			continue
		}
		inCSV[img] = true
		out = append(out, fbc.RelatedImage{Image: img})
	}
	sortRelatedImages(out)
	return out
}

// isCSVMetadataOrObject tells the properties opm moves to the end of the list.
func isCSVMetadataOrObject(t string) bool {
	return t == property.TypeBundleObject || t == property.TypeCSVMetadata
}
