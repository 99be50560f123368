package fbc

import "testing"

// BenchmarkCatalogAdd decodes every blob of the benchmark catalog (see benchCatalog), read into
// memory beforehand: the decoding alone, without the reading and splitting of files.
func BenchmarkCatalogAdd(b *testing.B) {
	dir, _ := benchCatalog(b)
	var blobs []Blob
	var size int64
	if err := Walk(dir, func(blob Blob) error {
		blobs = append(blobs, blob)
		size += int64(len(blob.Data))
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var c Catalog
		for _, blob := range blobs {
			if err := c.Add(blob); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCatalogAddReference is BenchmarkCatalogAdd with the encoding/json based decoding, for
// comparison.
func BenchmarkCatalogAddReference(b *testing.B) {
	dir, _ := benchCatalog(b)
	var blobs []Blob
	var size int64
	if err := Walk(dir, func(blob Blob) error {
		if blob.Schema == SchemaBundle {
			blobs = append(blobs, blob)
			size += int64(len(blob.Data))
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, blob := range blobs {
			var bundle Bundle
			if err := bundle.decodeReference(blob.Data); err != nil {
				b.Fatal(err)
			}
		}
	}
}
