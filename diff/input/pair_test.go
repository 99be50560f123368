package input_test

import (
	"context"
	"os"
	"testing"
	"unsafe"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
)

// Opening the same catalog as both sides keeps one copy of every property value, and compares clean.
func TestOpenPairSharesEqualContent(t *testing.T) {
	if _, err := os.Stat(jaeger); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", jaeger, err)
	}
	oldSide, newSide, err := input.OpenPair(context.Background(), jaeger, jaeger, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared, values := 0, 0
	for i := range newSide.Catalog.Bundles {
		ob, nb := oldSide.Catalog.Bundles[i], newSide.Catalog.Bundles[i]
		for j := range nb.Properties {
			values++
			if unsafe.SliceData(ob.Properties[j].Value) == unsafe.SliceData(nb.Properties[j].Value) {
				shared++
			}
		}
	}
	if values == 0 || shared != values {
		t.Errorf("%d of %d property values shared", shared, values)
	}
	if r := diff.Compare(oldSide, newSide); len(r.Findings) != 0 {
		t.Errorf("findings: %+v", r.Findings)
	}
	if _, _, err := input.OpenPair(context.Background(), jaeger, jaeger+"-missing", input.Options{}); err == nil {
		t.Error("a missing new side is an error")
	}
}
