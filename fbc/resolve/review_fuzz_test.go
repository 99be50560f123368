package resolve

import (
	"bytes"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// FuzzReviewV1: whatever catalog loads, OLM v1's review of it ends without a panic, and every
// finding it adds holds for OLM v1 and names its package.
func FuzzReviewV1(f *testing.F) {
	for _, seed := range []string{
		`{"schema":"olm.package","name":"p","defaultChannel":"c"}{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a"},{"name":"b","replaces":"a","skipRange":"<1.0.0 >x"}]}{"schema":"olm.bundle","name":"a","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0-rc.1"}}]}{"schema":"olm.bundle","name":"b","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"0.9.0"}}]}`,
		`{"schema":"olm.package","name":"p"}{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a","replaces":"b"},{"name":"b","replaces":"a"}]}{"schema":"olm.bundle","name":"a","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0+0123456789012345678901"}}]}{"schema":"olm.bundle","name":"b","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}{"schema":"olm.deprecations","package":"p","entries":[{"reference":{"schema":"olm.bundle","name":"b"},"message":"x"}]}`,
		`{"schema":"olm.channel","name":"c","package":"p","entries":[{"name":"a","stranded":"x"}]}{"schema":"olm.bundle","name":"a","package":"p","properties":[{"type":"olm.package","value":{"packageName":"p","version":"x"}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, err := fbc.LoadReader(bytes.NewReader(data), "catalog.json")
		if err != nil {
			return
		}
		for _, g := range []model.Generations{model.BothOLM, model.OnlyOLMv1} {
			v := model.NewValidator(model.Options{OLM: g, Review: ReviewV1})
			v.AddCatalog(cat)
			issues, err := v.Finish(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range issues {
				if len(i.OLM) == 1 && i.OLM[0] == model.OLMv1 && i.Package == "" {
					t.Errorf("OLM v1 finding without a package: %s", i.Error())
				}
			}
		}
	})
}
