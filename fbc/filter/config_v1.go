package filter

import (
	"fmt"
	"strings"
)

// v1Bundles are oc-mirror v1's minBundle and maxBundle (a range by bundle name, for bundles
// without a semantic version). olmcat selects by version or by bundles: they are refused, named.
type v1Bundles struct {
	MinBundle string `json:"minBundle,omitempty"`
	MaxBundle string `json:"maxBundle,omitempty"`
}

// checkISCVersionKeys refuses in a v2alpha1 file the keys only v1alpha2 has (as oc-mirror v2
// refuses them), and in a v1alpha2 file the keys olmcat cannot honour (minBundle, maxBundle); for
// a v1alpha2 file it returns the notice to say once.
func checkISCVersionKeys(doc *isc, data []byte, name string) (notice string, _ error) {
	v1 := doc.APIVersion == ISCV1APIVersion
	var v1Only []string
	if doc.StorageConfig != nil {
		v1Only = append(v1Only, "storageConfig")
	}
	for i, op := range doc.Mirror.Operators {
		if op.TargetName != "" {
			v1Only = append(v1Only, "targetName")
		}
		if op.OriginalRef != "" {
			v1Only = append(v1Only, "originalRef")
		}
		for _, p := range op.Packages {
			bundles := []v1Bundles{p.v1Bundles}
			for _, c := range p.Channels {
				bundles = append(bundles, c.v1Bundles)
			}
			for _, b := range bundles {
				for key, v := range map[string]string{"minBundle": b.MinBundle, "maxBundle": b.MaxBundle} {
					if v == "" {
						continue
					}
					if !v1 {
						v1Only = append(v1Only, key)
						continue
					}
					return "", fmt.Errorf("%s: mirror.operators[%d] package %s: %s %q (oc-mirror v1's range by bundle name) is not read by olmcat: give minVersion/maxVersion, or the bundles by name under bundles: [{name: ...}]",
						keyLine(data, name, key), i, p.Name, key, v)
				}
			}
		}
	}
	if !v1 {
		if len(v1Only) > 0 {
			return "", fmt.Errorf("%s: %q is a key of oc-mirror v1's %s, not of %s: remove it, or set apiVersion: %s",
				keyLine(data, name, v1Only[0]), v1Only[0], ISCV1APIVersion, ISCAPIVersion, ISCV1APIVersion)
		}
		return "", nil
	}
	notice = fmt.Sprintf("%s is an oc-mirror v1 ImageSetConfiguration (%s): its mirror.operators are read as oc-mirror v2 reads them", name, ISCV1APIVersion)
	if len(v1Only) > 0 {
		notice += "; " + strings.Join(dedupe(v1Only), ", ") + " not used (where oc-mirror v1 keeps its metadata and names its catalogs)"
	}
	return notice, nil
}

// keyLine is name:LINE of the first line that sets key, or name.
func keyLine(data []byte, name, key string) string {
	for n, line := range strings.Split(string(data), "\n") {
		t := strings.TrimLeft(strings.TrimSpace(line), "- ")
		if strings.HasPrefix(t, key+":") || strings.HasPrefix(t, `"`+key+`":`) {
			return fmt.Sprintf("%s:%d", name, n+1)
		}
	}
	return name
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
