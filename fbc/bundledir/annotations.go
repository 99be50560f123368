// Package bundledir reads registry+v1 bundle directories (manifests/ and metadata/, as in a bundle
// image) and renders them as olm.bundle blobs the way opm v1.72 `opm render DIR` does, and checks
// their annotations against image labels.
package bundledir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/olmcat/olmcat/fbc"
)

// The bundle annotations (and image labels) that say how to read a bundle.
const (
	LabelMediaType      = "operators.operatorframework.io.bundle.mediatype.v1"
	LabelManifests      = "operators.operatorframework.io.bundle.manifests.v1"
	LabelMetadata       = "operators.operatorframework.io.bundle.metadata.v1"
	LabelPackage        = "operators.operatorframework.io.bundle.package.v1"
	LabelChannels       = "operators.operatorframework.io.bundle.channels.v1"
	LabelDefaultChannel = "operators.operatorframework.io.bundle.channel.default.v1"
)

// CoreLabels are the six labels a bundle image and its annotations.yaml both carry, in the
// order the bundle design lists them.
var CoreLabels = []string{LabelMediaType, LabelManifests, LabelMetadata, LabelPackage, LabelChannels, LabelDefaultChannel}

// The media types a bundle may declare.
const (
	MediaTypeRegistryV1 = "registry+v1"
	MediaTypeHelm       = "helm"
	MediaTypePlain      = "plain"
)

// Annotations is the content of metadata/annotations.yaml.
type Annotations struct {
	File   string            // path relative to the bundle dir, e.g. metadata/annotations.yaml
	Values map[string]string // every annotation, core or not
}

// Package is the package annotation.
func (a Annotations) Package() string { return a.Values[LabelPackage] }

// DefaultChannel is the default-channel annotation ("" when absent).
func (a Annotations) DefaultChannel() string { return a.Values[LabelDefaultChannel] }

// Channels splits the channels annotation on commas, dropping empty names and surrounding spaces.
func (a Annotations) Channels() []string {
	var out []string
	for _, c := range strings.Split(a.Values[LabelChannels], ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func decodeAnnotations(raw json.RawMessage) (map[string]string, error) {
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, fmt.Errorf("expected a map of strings")
	}
	out := make(map[string]string, len(generic))
	for k, v := range generic {
		switch v := v.(type) {
		case string:
			out[k] = v
		case nil:
			out[k] = ""
		case bool, float64:
			// YAML turns unquoted true/1.0 into non-strings; opm's typed decoding would refuse
			// them for the core keys, but only for those.
			if isCoreLabel(k) {
				return nil, fmt.Errorf("%s is %v, not a string: quote the value", k, v)
			}
			out[k] = fmt.Sprint(v)
		default:
			if isCoreLabel(k) {
				return nil, fmt.Errorf("%s must be a string", k)
			}
		}
	}
	return out, nil
}

func isCoreLabel(k string) bool {
	for _, l := range CoreLabels {
		if k == l {
			return true
		}
	}
	return false
}

// decodeTypedList reads a list of {type, value} entries, keeping each value as compact JSON.
func decodeTypedList(raw json.RawMessage) ([]fbc.Property, error) {
	var items []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("expected a list of {type, value} entries")
	}
	out := make([]fbc.Property, 0, len(items))
	for i, it := range items {
		if it.Type == "" {
			return nil, fmt.Errorf("entry %d has no type", i)
		}
		if len(it.Value) == 0 || string(it.Value) == "null" {
			return nil, fmt.Errorf("entry %d (%s) has no value", i, it.Type)
		}
		out = append(out, fbc.Property{Type: it.Type, Value: it.Value})
	}
	return out, nil
}

// firstDocumentJSON converts the first non-empty YAML (or JSON) document of data to JSON. It returns
// nil JSON when the file holds no document at all.
func firstDocumentJSON(data []byte) ([]byte, error) {
	docs := splitYAMLDocuments(data)
	for _, d := range docs {
		j, err := yaml.YAMLToJSON(d.text)
		if err != nil {
			return nil, lineShift(err, d.line)
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
			continue
		}
		return j, nil
	}
	return nil, nil
}

type yamlDocument struct {
	text []byte
	line int // 1-based line of the document's first line in the file
}

// splitYAMLDocuments splits on "---" separator lines (which may carry a trailing comment), as
// Kubernetes' YAML reader does.
func splitYAMLDocuments(data []byte) []yamlDocument {
	var docs []yamlDocument
	start, startLine, line := 0, 1, 1
	for pos := 0; pos <= len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		var l []byte
		next := len(data) + 1
		if end >= 0 {
			l = data[pos : pos+end]
			next = pos + end + 1
		} else {
			l = data[pos:]
		}
		if isDocSeparator(l) {
			docs = append(docs, yamlDocument{text: data[start:pos], line: startLine})
			start, startLine = min(next, len(data)), line+1
		}
		pos = next
		line++
	}
	if start <= len(data) {
		docs = append(docs, yamlDocument{text: data[start:], line: startLine})
	}
	return docs
}

func isDocSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := bytes.TrimSpace(line[3:])
	return len(rest) == 0 || rest[0] == '#'
}

// lineShift rewrites "yaml: line N:" in a parse error of a document that starts at line first of
// its file, so the message names the file's line.
func lineShift(err error, first int) error {
	msg := err.Error()
	if first <= 1 {
		return err
	}
	var n int
	var rest string
	if i := strings.Index(msg, "line "); i >= 0 {
		if _, scanErr := fmt.Sscanf(msg[i:], "line %d:", &n); scanErr == nil {
			j := strings.Index(msg[i:], ":")
			rest = msg[i+j:]
			return fmt.Errorf("%sline %d%s", msg[:i], n+first-1, rest)
		}
	}
	return err
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
