package fbc

import "testing"

// FuzzNewBlobUnchecked: the second reading of WalkPackages does not validate blobs again (the first
// did); should a file change in between, newBlob must still not panic on what the splitter cuts.
func FuzzNewBlobUnchecked(f *testing.F) {
	for _, seed := range []string{`{"schema":"olm.package","name":"a"}`, `{[}]`, `{"a"}`, `{a:}`, `{"schema"`, `{"name":"x",}`, `{"x":[}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = newBlob(data, Location{File: "f.json", Line: 1}, false)
	})
}
