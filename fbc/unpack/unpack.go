// Package unpack lays a catalog out for people to read and edit, as the declarative-config design
// proposed: one directory per package holding <package>.json (the package's blobs) and
// objects/<bundle>/ with each bundle object as a YAML file. The bundles' olm.bundle.object
// properties then hold {"ref": "objects/<bundle>/<file>"} instead of the data; ResolveRefs turns
// them back into data when such a catalog is loaded.
package unpack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
)

// ObjectsDir is the directory, beside each <package>.json, that holds the bundle objects.
const ObjectsDir = "objects"

// ignoreFile keeps the catalog loader away from the object files, which are not catalog blobs.
const ignoreFile = ".indexignore"

// Unpack writes the catalog to outDir (which must not exist or be empty, unless force) in the
// unpacked layout. Blobs that belong to no package go to outDir/catalog.json. The catalog itself is
// not changed. Nothing is left at outDir on error.
func Unpack(c *fbc.Catalog, outDir string, force bool) error {
	out, err := atomicout.Dir(outDir, force)
	if err != nil {
		return err
	}
	defer out.Abort()
	var names outpath.Names
	names.Reserve(rootFile)
	for _, part := range fbc.SplitByPackage(c) {
		if err := writePart(out.Path(), part, &names); err != nil {
			return out.Err(err)
		}
	}
	return out.Commit()
}

// rootFile holds the blobs of no package.
const rootFile = "catalog.json"

func writePart(root string, part fbc.PackagePart, names *outpath.Names) error {
	if part.Package == "" {
		return writeBlobs(filepath.Join(root, rootFile), part.Catalog)
	}
	pkgDir, err := names.Join(root, outpath.Package, part.Package, part.Catalog.Where())
	if err != nil {
		return err
	}
	dir := part.Package
	if err := os.Mkdir(pkgDir, 0o755); err != nil {
		return err
	}
	cat := *part.Catalog
	cat.Bundles = make([]fbc.Bundle, len(part.Catalog.Bundles))
	usedDirs := map[string]bool{}
	for i, b := range part.Catalog.Bundles {
		nb, err := writeObjects(pkgDir, b, usedDirs)
		var nameErr *outpath.NameError
		if errors.As(err, &nameErr) {
			return err
		}
		if err != nil {
			return fmt.Errorf("package %q, bundle %q: %w", b.Package, b.Name, err)
		}
		cat.Bundles[i] = nb
	}
	if len(usedDirs) > 0 {
		if err := os.WriteFile(filepath.Join(pkgDir, ignoreFile), []byte("/"+ObjectsDir+"/\n"), 0o644); err != nil {
			return err
		}
	}
	return writeBlobs(filepath.Join(pkgDir, dir+".json"), &cat)
}

func writeBlobs(path string, c *fbc.Catalog) error {
	var buf bytes.Buffer
	if err := fbc.Write(&buf, c, fbc.JSON); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// writeObjects writes the bundle's objects to files and returns the bundle with refs in their place.
func writeObjects(pkgDir string, b fbc.Bundle, usedDirs map[string]bool) (fbc.Bundle, error) {
	var bundleDir string
	usedFiles := map[string]bool{}
	props := make([]fbc.Property, len(b.Properties))
	copy(props, b.Properties)
	for i, p := range props {
		if p.Type != property.TypeBundleObject {
			continue
		}
		var obj property.BundleObject
		if err := json.Unmarshal(p.Value, &obj); err != nil {
			return b, fmt.Errorf("property %d (olm.bundle.object): %v", i, err)
		}
		if obj.Ref != "" {
			return b, fmt.Errorf("property %d (olm.bundle.object) is already a ref (%s): load the catalog with its refs resolved first", i, obj.Ref)
		}
		if bundleDir == "" {
			if reason := outpath.Check(b.Name); reason != "" {
				bundle := fbc.Catalog{Bundles: []fbc.Bundle{b}}
				return b, &outpath.NameError{Kind: outpath.Bundle, Name: b.Name, Where: bundle.Where(), Reason: reason}
			}
			// Two bundle names that differ only in case get two directories: the refs name them.
			bundleDir = unique(b.Name, usedDirs)
			if err := os.MkdirAll(filepath.Join(pkgDir, ObjectsDir, bundleDir), 0o755); err != nil {
				return b, err
			}
		}
		name := objectFileName(obj.Data)
		if outpath.Check(name) != "" { // only a name too long is left after objectFileName
			name = "object.yaml"
		}
		file := unique(name, usedFiles)
		content, err := fileContent(obj.Data)
		if err != nil {
			return b, fmt.Errorf("property %d (olm.bundle.object): %v", i, err)
		}
		rel := ObjectsDir + "/" + bundleDir + "/" + file
		if err := os.WriteFile(filepath.Join(pkgDir, filepath.FromSlash(rel)), content, 0o644); err != nil {
			return b, err
		}
		props[i] = property.Build(property.TypeBundleObject, property.BundleObject{Ref: rel})
	}
	b.Properties = props
	return b, nil
}

// fileContent is the object as YAML when reading that YAML back gives exactly the stored bytes,
// else the stored JSON, indented (any JSON object is also a YAML document, and ResolveRefs reads
// JSON files back byte for byte).
func fileContent(data []byte) ([]byte, error) {
	if y, err := yaml.JSONToYAML(data); err == nil {
		if back, err := decodeObjectFile(y); err == nil && bytes.Equal(back, data) {
			return y, nil
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return nil, fmt.Errorf("object data is not JSON: %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// objectFileName is <name>_<group>_<version>_<kind>.yaml, lower-case kind, without the group for
// core objects (apiVersion "v1").
func objectFileName(data []byte) string {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(data, &head)
	parts := []string{head.Metadata.Name}
	group, version, ok := strings.Cut(head.APIVersion, "/")
	if !ok {
		group, version = "", head.APIVersion
	}
	if group != "" {
		parts = append(parts, group)
	}
	parts = append(parts, version, strings.ToLower(head.Kind))
	for i, p := range parts {
		parts[i] = strings.Trim(unsafeChars.ReplaceAllString(p, "-"), ".")
		if parts[i] == "" {
			parts[i] = "unknown"
		}
	}
	return strings.Join(parts, "_") + ".yaml"
}

// unique returns name, or name with "-2", "-3"... before its extension when it is taken.
func unique(name string, used map[string]bool) string {
	ext := filepath.Ext(name)
	if ext != ".yaml" {
		ext = ""
	}
	base := strings.TrimSuffix(name, ext)
	cand := name
	for n := 2; used[strings.ToLower(cand)]; n++ {
		cand = fmt.Sprintf("%s-%d%s", base, n, ext)
	}
	used[strings.ToLower(cand)] = true
	return cand
}

// decodeObjectFile reads an object file back into the bytes stored in olm.bundle.object: a JSON
// file byte for byte (whitespace removed), a YAML file as opm would render that manifest.
func decodeObjectFile(content []byte) ([]byte, error) {
	if t := bytes.TrimSpace(content); len(t) > 0 && t[0] == '{' {
		var out bytes.Buffer
		if err := json.Compact(&out, t); err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		return out.Bytes(), nil
	}
	obj, err := bundledir.DecodeManifest(content)
	if err != nil {
		return nil, err
	}
	return obj.JSON, nil
}
