package bundlefetch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// The large template workload, shaped like a konflux catalog's: 49 bundle images of about 650 kB
// of manifests each (32 MB in all), mostly CustomResourceDefinitions with deep OpenAPI schemas,
// which is where a template's CPU goes (YAML to parse, JSON to canonicalise, compact and indent).

const (
	largeBundles   = 49
	largeCRDs      = 7  // extra CRDs per bundle
	largeCRDFields = 11 // fields per schema level
	largeCRDDepth  = 3  // levels of nested objects
)

// largeCRD is a CustomResourceDefinition of about 78 kB, deterministic from its index.
func largeCRD(i int) []byte {
	var b strings.Builder
	plural := fmt.Sprintf("gadgets%d", i)
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  creationTimestamp: null\n  name: %s.bench.example.com\nspec:\n  group: bench.example.com\n  names:\n    kind: Gadget%d\n    listKind: Gadget%dList\n    plural: %s\n    singular: gadget%d\n  scope: Namespaced\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        description: Gadget%d is a generated resource with a deep schema, as operators' CRDs have.\n        type: object\n        properties:\n", plural, i, i, plural, i, i)
	var fields func(indent string, depth int, path string)
	fields = func(indent string, depth int, path string) {
		for f := range largeCRDFields {
			name := fmt.Sprintf("field%s%d", path, f)
			fmt.Fprintf(&b, "%s%s:\n", indent, name)
			fmt.Fprintf(&b, "%s  description: '%s of %s configures the <gadget> at level %d; it is \"quoted\" & described at length so that the schema weighs what real ones do.'\n", indent, name, plural, depth)
			switch {
			case depth < largeCRDDepth && f%3 == 0:
				fmt.Fprintf(&b, "%s  type: object\n%s  x-kubernetes-preserve-unknown-fields: true\n%s  properties:\n", indent, indent, indent)
				fields(indent+"    ", depth+1, fmt.Sprintf("%s%d", path, f))
			case f%3 == 1:
				fmt.Fprintf(&b, "%s  type: integer\n%s  format: int64\n%s  minimum: 0\n%s  maximum: %d\n", indent, indent, indent, indent, 1000+f*depth)
			case f%3 == 2:
				fmt.Fprintf(&b, "%s  type: array\n%s  items:\n%s    type: string\n%s    enum:\n%s    - Alpha\n%s    - Beta\n%s    - \"1.5\"\n", indent, indent, indent, indent, indent, indent, indent)
			default:
				fmt.Fprintf(&b, "%s  type: string\n%s  pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n", indent, indent)
			}
		}
	}
	fields("          ", 1, "")
	b.WriteString("    served: true\n    storage: true\n    subresources:\n      status: {}\n")
	return []byte(b.String())
}

// pushLargeBenchImages pushes the large workload's bundle images to host and returns their refs:
// the 50-version clusterpulse bundle with largeCRDs extra CRDs each.
func pushLargeBenchImages(tb testing.TB, host string) []string {
	tb.Helper()
	files, labels := benchBundleFiles(tb)
	extra := map[string][]byte{}
	for i := range largeCRDs {
		extra[fmt.Sprintf("manifests/gadgets%d.bench.example.com.yaml", i)] = largeCRD(i)
	}
	var refs []string
	for _, v := range benchVersions()[:largeBundles] {
		versioned := versionedBundle(files, v)
		for name, data := range extra {
			versioned[name] = data
		}
		ref := host + "/large-bundle:" + v
		imagetest.Push(tb, ref, imagetest.Image(tb, versioned, labels))
		refs = append(refs, ref)
	}
	return refs
}
