package sqlite

import (
	"slices"
	"strings"
	"testing"
)

// operatorbundle.bundle is input: any bytes split into objects with the CSV among them, or fail.
func FuzzQuerySplitBundleBlob(f *testing.F) {
	f.Add([]byte(`{"kind":"ClusterServiceVersion"}` + "\n"))
	f.Add([]byte(`{"kind":"A"}{"kind":"ClusterServiceVersion"}`))
	f.Add([]byte(` {"a":["}",{"b":"\\\""}]}` + "\n" + `{"kind":"ClusterServiceVersion"} `))
	f.Add([]byte(`{"a":1} 5 {"kind":"ClusterServiceVersion"}`))
	f.Add([]byte(`{"kind":"ClusterServiceVersion"}}`))
	f.Fuzz(func(t *testing.T, blob []byte) {
		if fast, ok := querySplitObjectsFast(string(blob)); ok {
			slow, err := querySplitValues(string(blob))
			if err != nil || !slices.Equal(fast, slow) {
				t.Fatalf("fast split %q, stream decoder %q (%v)", fast, slow, err)
			}
		}
		objs, csv, err := querySplitBundleBlob(string(blob))
		if err != nil {
			return
		}
		found := false
		for _, o := range objs {
			found = found || o == csv
			if !strings.Contains(string(blob), o) {
				t.Fatalf("object %q is not a part of the blob", o)
			}
		}
		if !found {
			t.Fatalf("csvJson is not one of the objects")
		}
	})
}
