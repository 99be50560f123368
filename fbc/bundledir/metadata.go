package bundledir

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// metadataFiles holds what metadata/ contributed to a bundle.
type metadataFiles struct {
	annotations  *Annotations
	dependencies *DependenciesFile // the first file with dependencies, read as opm reads it
	depsFile     string            // its path, joined to the bundle directory
	properties   []fbc.Property    // entries of properties.yaml
	propsFile    string
	warnings     []Warning
}

// readMetadata looks at every file of metadata/ (in name order) and takes, as opm does, the first
// that holds annotations, the first that holds dependencies and the first that holds properties.
// A file that is not YAML at all is ignored, as opm ignores it, with a warning; when no annotations
// file remains, the error names the broken files, so that a broken annotations.yaml is reported as
// such.
func readMetadata(bundleDir string, metadata fs.FS) (*metadataFiles, error) {
	entries, err := fs.ReadDir(metadata, ".")
	if err != nil {
		return nil, fmt.Errorf("bundle %s: read metadata directory: %w", bundleDir, onDisk(err, filepath.Join(bundleDir, "metadata")))
	}
	md := &metadataFiles{}
	var broken []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		rel := filepath.ToSlash(filepath.Join("metadata", e.Name()))
		path := filepath.Join(bundleDir, rel)
		data, err := readBundleFile(bundleDir, metadata, e.Name(), rel)
		if err != nil {
			return nil, err
		}
		doc, err := firstDocumentJSON(data)
		if err != nil {
			broken = append(broken, fmt.Sprintf("%s: not valid YAML: %v", path, err))
			line, msg := yamlErrorLine(err)
			lost := ""
			if topLevelKeyLine(data, "dependencies") > 0 {
				lost = " (none of its dependencies reach the bundle)"
			}
			md.warnings = append(md.warnings, warnf(path, line, "not valid YAML: %s; opm ignores the whole file%s, and so does olmcat. Fix the YAML (indentation).", msg, lost))
			continue
		}
		md.readDependencies(path, data)
		if doc == nil {
			continue
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(doc, &top) != nil {
			continue // a YAML scalar or list: not a metadata file opm knows
		}
		if raw, ok := top["annotations"]; ok && md.annotations == nil {
			a, err := decodeAnnotations(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: annotations: %v (each annotation must be a string)", path, err)
			}
			if len(a) > 0 {
				md.annotations = &Annotations{File: rel, Values: a}
			}
		}
		if raw, ok := top["properties"]; ok && md.properties == nil {
			props, err := decodeTypedList(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: properties: %v", path, err)
			}
			md.properties, md.propsFile = props, rel
		}
	}
	if md.annotations == nil {
		if len(broken) > 0 {
			return nil, fmt.Errorf("%s (and no other file of metadata/ holds the annotations: fix the file; bundle metadata files must be YAML or JSON)", strings.Join(broken, "; "))
		}
		return nil, fmt.Errorf("bundle %s: no annotations file in metadata/ (add metadata/annotations.yaml with an \"annotations:\" map naming at least the package and channels)", bundleDir)
	}
	return md, nil
}

// readDependencies reads one metadata file (valid YAML) as opm does when it looks for
// dependencies, keeping the first file that has any and warning about what opm would skip.
func (md *metadataFiles) readDependencies(path string, data []byte) {
	df, err := ParseDependencies(data)
	switch {
	case err != nil:
		if n := topLevelKeyLine(data, "dependencies"); n > 0 {
			line, msg := yamlErrorLine(err)
			if line == 0 {
				line, msg = n, shapeProblem(data)
			}
			md.warnings = append(md.warnings, warnf(path, line, "not a dependencies file opm can read (%s); opm ignores the whole file (none of its dependencies reach the bundle), and so does olmcat. Make dependencies a list of {type, value} entries.", msg))
		}
		return
	case df.LaterDocument > 0 && len(df.Entries) == 0:
		md.warnings = append(md.warnings, warnf(path, df.LaterDocument, "dependencies in a second YAML document; opm reads only the first document of a metadata file and ignores them, and so does olmcat. Move them into the first document."))
	case len(df.Entries) == 0:
	case md.dependencies != nil:
		md.warnings = append(md.warnings, warnf(path, df.Line, "dependencies again; opm takes them from the first metadata file that has any (%s) and ignores these, and so does olmcat. Keep one dependencies file.", md.depsFile))
	default:
		md.dependencies, md.depsFile = df, path
	}
}

var yamlLine = regexp.MustCompile(`^(?:[^:]*: )*(?:yaml: )?line (\d+): `)

// yamlErrorLine splits "... yaml: line N: message" into N and the message.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, msg[len(m[0]):]
	}
	return 0, msg
}

// shapeProblem describes why a YAML document's dependencies are not a list of {type, value}
// entries, in the file's own terms.
func shapeProblem(data []byte) string {
	j, err := firstDocumentJSON(data)
	if err != nil || j == nil {
		return "the first document is not a map"
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(j, &top) != nil {
		return "the first document is not a map"
	}
	var list []json.RawMessage
	if json.Unmarshal(top["dependencies"], &list) != nil {
		return "dependencies is not a list"
	}
	for i, raw := range list {
		var entry map[string]json.RawMessage
		if json.Unmarshal(raw, &entry) != nil {
			return fmt.Sprintf("dependency %d is not a map", i+1)
		}
		var typ string
		if t, ok := entry["type"]; ok && json.Unmarshal(t, &typ) != nil {
			return fmt.Sprintf("the type of dependency %d is not a string", i+1)
		}
	}
	return "its entries do not decode"
}
