package bundledir

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// Bundle is a parsed registry+v1 bundle directory.
type Bundle struct {
	Dir          string
	Annotations  Annotations
	Objects      []Object // manifests/ in file-name order, the CSV among them
	CSV          *CSV
	CSVFile      string         // e.g. manifests/foo.clusterserviceversion.yaml
	Provided     []API          // CRD versions and owned API services
	Required     []API          // CSV-required CRDs and API services
	Dependencies []fbc.Property // metadata dependencies file entries, as opm reads them
	Properties   []fbc.Property // metadata properties file entries, as written
	// Warnings are things opm silently tolerates and renders anyway, as this package does: a
	// dependency opm cannot read, a metadata file it ignores, a manifest file it skips, extra
	// documents, a CSV olm.properties annotation that is not JSON.
	Warnings []Warning
}

// Name is the bundle's name: its CSV's metadata.name.
func (b *Bundle) Name() string { return b.CSV.Name }

// Package is the package the annotations name.
func (b *Bundle) Package() string { return b.Annotations.Package() }

// Parse reads a bundle directory: manifests/ must hold exactly one ClusterServiceVersion (plus
// CRDs and other objects) and metadata/ an annotations file. What opm refuses is an error naming
// the directory and file; what opm silently renders otherwise than the author meant is rendered
// the same and listed in Warnings.
func Parse(dir string) (*Bundle, error) {
	return ParseFS(dir, os.DirFS(filepath.Join(dir, "manifests")), os.DirFS(filepath.Join(dir, "metadata")))
}

// ParseFS is Parse for a bundle whose manifests/ and metadata/ directories are the file systems
// manifests and metadata (an extracted bundle image held in memory, say); dir names the bundle
// directory in messages and in Dir, as Parse(dir) would. Links are followed as on disk, so the
// file systems must keep links inside themselves.
func ParseFS(dir string, manifests, metadata fs.FS) (*Bundle, error) {
	for _, sub := range []struct {
		name string
		fsys fs.FS
	}{{"manifests", manifests}, {"metadata", metadata}} {
		fi, err := fs.Stat(sub.fsys, ".")
		if err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("bundle %s: no %s/ directory (a bundle directory holds manifests/ and metadata/, as in a bundle image)", dir, sub.name)
		}
	}
	md, err := readMetadata(dir, metadata)
	if err != nil {
		return nil, err
	}
	if mt := md.annotations.Values[LabelMediaType]; mt != "" && mt != MediaTypeRegistryV1 {
		return nil, fmt.Errorf("%s: media type %q: only %s bundles can be rendered into a catalog",
			filepath.Join(dir, md.annotations.File), mt, MediaTypeRegistryV1)
	}
	objs, warnings, err := readManifests(dir, manifests)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Dir: dir, Annotations: *md.annotations, Objects: objs,
		Warnings: append(md.warnings, warnings...), Properties: md.properties}
	if md.dependencies != nil {
		depWarnings, err := checkDependencies(md.depsFile, md.dependencies)
		if err != nil {
			return nil, err
		}
		b.Warnings = append(b.Warnings, depWarnings...)
		for _, e := range md.dependencies.Entries {
			b.Dependencies = append(b.Dependencies, fbc.Property{Type: e.Type, Value: e.Value})
		}
	}
	var csvFiles []string
	for _, o := range objs {
		if o.Kind != kindCSV {
			continue
		}
		csvFiles = append(csvFiles, o.File)
		if b.CSV == nil {
			if b.CSV, err = parseCSV(o); err != nil {
				return nil, fmt.Errorf("bundle %s: %w", dir, err)
			}
			b.CSVFile = o.File
		}
	}
	switch len(csvFiles) {
	case 0:
		return nil, fmt.Errorf("bundle %s: no ClusterServiceVersion in manifests/ (a registry+v1 bundle needs exactly one)", dir)
	case 1:
	default:
		return nil, fmt.Errorf("bundle %s: %d ClusterServiceVersions in manifests/ (%s): a bundle holds exactly one; move the others to their own bundle directories",
			dir, len(csvFiles), strings.Join(csvFiles, ", "))
	}
	if raw, ok := b.CSV.Annotations["olm.properties"]; ok {
		var fromCSV []fbc.Property
		if err := json.Unmarshal([]byte(raw), &fromCSV); err != nil {
			b.Warnings = append(b.Warnings, warnf(filepath.Join(dir, b.CSVFile), 0, "olm.properties annotation is not a JSON list of properties; opm ignores it, and so does olmcat: %v", err))
		}
	}
	if b.Package() == "" {
		return nil, fmt.Errorf("%s: no %s annotation: the bundle's package is unknown", filepath.Join(dir, md.annotations.File), LabelPackage)
	}
	if b.Provided, err = providedAPIs(objs, b.CSV); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	if err := checkOwnedCRDsPresent(b.CSV, b.Provided); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	if b.Required, err = requiredAPIs(b.CSV); err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	return b, nil
}
