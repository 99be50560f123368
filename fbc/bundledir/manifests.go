package bundledir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
)

// Object is one Kubernetes manifest of a bundle.
type Object struct {
	File       string // path relative to the bundle dir, e.g. manifests/foo.crd.yaml
	APIVersion string
	Kind       string
	Name       string
	// JSON is the object as Kubernetes' apimachinery writes it: compact, keys sorted, HTML
	// characters escaped. opm stores exactly these bytes (base64) in olm.bundle.object.
	JSON []byte

	crd *crdDoc // what providedAPIs reads of a CRD, when decoding read it already (never changed)
}

// Group is the API group of the object's apiVersion ("" for the core group).
func (o Object) Group() string {
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		return o.APIVersion[:i]
	}
	return ""
}

// Version is the version part of the object's apiVersion.
func (o Object) Version() string {
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		return o.APIVersion[i+1:]
	}
	return o.APIVersion
}

// readManifests decodes every non-hidden file directly under manifests/, in name order. As with
// opm, only the first document of a file counts and files that are not Kubernetes objects are
// skipped; each skip is reported as a warning.
func readManifests(bundleDir string, manifests fs.FS) (objs []Object, warnings []Warning, err error) {
	entries, err := fs.ReadDir(manifests, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("bundle %s: read manifests directory: %w", bundleDir, onDisk(err, filepath.Join(bundleDir, "manifests")))
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rel := filepath.ToSlash(filepath.Join("manifests", e.Name()))
		data, err := readBundleFile(bundleDir, manifests, e.Name(), rel)
		if err != nil {
			return nil, nil, err
		}
		obj, extraDocs, err := decodeObjectOnce(data)
		if err != nil {
			warnings = append(warnings, warnf(filepath.Join(bundleDir, rel), 0, "skipped, as opm skips it: %v", err))
			continue
		}
		if extraDocs > 0 {
			warnings = append(warnings, warnf(filepath.Join(bundleDir, rel), 0, "only the first of %d YAML documents is part of the bundle", extraDocs+1))
		}
		obj.File = rel
		objs = append(objs, *obj)
	}
	return objs, warnings, nil
}

// DecodeManifest reads a manifest file (YAML or JSON) the way opm reads a bundle's manifests: the
// first non-empty document, which must be a Kubernetes object. The Object's JSON is what opm would
// store for it. File is left empty.
func DecodeManifest(data []byte) (*Object, error) {
	obj, _, err := decodeObject(data)
	return obj, err
}

// decodeObject reads the first non-empty document of a manifest file as a Kubernetes object and
// says how many more non-empty documents the file holds.
func decodeObject(data []byte) (*Object, int, error) {
	var first []byte
	extra := 0
	for _, d := range splitYAMLDocuments(data) {
		j, err := yaml.YAMLToJSON(d.text)
		if err != nil {
			if first != nil {
				break // opm never reads past the first document
			}
			return nil, 0, fmt.Errorf("not valid YAML: %v", lineShift(err, d.line))
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
			continue
		}
		if first == nil {
			first = j
		} else {
			extra++
		}
	}
	if first == nil {
		return nil, 0, fmt.Errorf("empty file")
	}
	canonical := first
	if !isCanonical(first) {
		var err error
		if canonical, err = canonicalJSON(first); err != nil {
			return nil, 0, err
		}
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(skim(canonical, headMembers), &head); err != nil {
		// the message of the whole document
		if err := json.Unmarshal(canonical, &head); err != nil {
			return nil, 0, fmt.Errorf("not a Kubernetes object: %v", err)
		}
	}
	if head.Kind == "" {
		return nil, 0, fmt.Errorf("not a Kubernetes object: no kind")
	}
	obj := &Object{APIVersion: head.APIVersion, Kind: head.Kind, Name: head.Metadata.Name, JSON: canonical}
	if obj.providesAPIs() {
		// Read here, once per distinct file (the memo keeps it with the object), rather than by
		// every bundle that repeats the CRD.
		var d crdDoc
		if json.Unmarshal(skim(canonical, crdMembers), &d) == nil {
			obj.crd = &d
		}
	}
	return obj, extra, nil
}

// headMembers are the members decodeObject reads of every manifest.
var headMembers = members{"apiVersion": nil, "kind": nil, "metadata": {"name": nil}}

// isCanonical reports that j, as yaml.YAMLToJSON writes it (json.Marshal of a map), is already
// what canonicalJSON would make of it, which saves decoding and encoding every manifest again:
// an object (canonicalJSON refuses anything else) whose strings hold no U+FFFD escape. json.Marshal
// writes keys sorted, HTML-escaped, numbers as it formats them (kept as written by UseNumber); the
// one thing a second round trip changes is invalid UTF-8, which the first writes as the escape
// \ufffd and the second as the character itself.
func isCanonical(j []byte) bool {
	return len(j) > 0 && j[0] == '{' && !bytes.Contains(j, []byte(`\ufffd`))
}

// canonicalJSON re-encodes a JSON object the way apimachinery's unstructured encoder does: keys
// sorted, HTML-escaped, numbers kept as written by the YAML-to-JSON conversion.
func canonicalJSON(j []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a Kubernetes object: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("not a Kubernetes object: expected a map, found %s", jsonKind(v))
	}
	return json.Marshal(v)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// readBundleFile reads the file name of sub, the manifests/ or metadata/ directory of a bundle
// directory, rel its name in the bundle directory (see ReadFile).
func readBundleFile(bundleDir string, sub fs.FS, name, rel string) ([]byte, error) {
	data, err := readFile(sub, name, rel)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", bundleDir, onDisk(err, filepath.Join(bundleDir, filepath.FromSlash(rel))))
	}
	return data, nil
}

// onDisk names, in a path error of a bundle file system, the file as it is (or would be) on disk.
func onDisk(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = path
	}
	return err
}

// ReadFile reads a file a bundle is made of (a manifest, a metadata file, a labels file), named
// name in errors. It must be a regular file (symbolic links are followed): a named pipe would wait
// for a writer forever, a device like /dev/zero never ends. It may hold at most
// fbc.BlobLimit bytes, since its content becomes part of a bundle blob, which the loader
// refuses beyond that size.
func ReadFile(path, name string) ([]byte, error) {
	data, err := readFile(os.DirFS(filepath.Dir(path)), filepath.Base(path), name)
	return data, onDisk(err, path)
}

// readFile is ReadFile for the file path of fsys.
func readFile(fsys fs.FS, path, name string) ([]byte, error) {
	fi, err := fs.Stat(fsys, path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): only regular files are read", name, fbc.FileKind(fi.Mode()))
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := fbc.BlobLimit()
	var buf bytes.Buffer
	buf.Grow(int(min(fi.Size(), int64(limit))) + bytes.MinRead + 1) // one buffer, not grown
	if _, err := buf.ReadFrom(io.LimitReader(f, int64(limit)+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if buf.Len() > limit {
		return nil, fmt.Errorf("%s is larger than %s, more than a bundle blob may hold: the file is corrupt or not a manifest, or set %s to a higher value, e.g. %s=%s",
			name, fbc.FormatBlobSize(limit), fbc.EnvMaxBlobBytes, fbc.EnvMaxBlobBytes, fbc.FormatBlobSize(2*limit))
	}
	return buf.Bytes(), nil
}
