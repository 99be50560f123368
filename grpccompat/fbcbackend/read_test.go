package fbcbackend

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
)

var readCatalog = generate.Options{Packages: 3, BundlesPerPackage: 6, CRDsPerBundle: 2, SkipEvery: 3, DescriptionBytes: 4096, Seed: 5}

// grpc encodes an answer after GetBundle returned, while other calls run: no answer may share
// memory that a later call writes.
func TestGetBundleAnswersOwnTheirMemory(t *testing.T) {
	b, err := Open(context.Background(), Dir(writeCatalog(t, readCatalog)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	var kept []*api.Bundle
	var wire [][]byte
	for _, k := range b.list {
		got, err := b.GetBundle(ctx, k.pkg.Name, k.ch.Name, k.entry.Name)
		if err != nil {
			t.Fatal(err)
		}
		w, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		kept, wire = append(kept, got), append(wire, w)
	}
	for _, k := range slices.Backward(b.list) {
		if _, err := b.GetBundle(ctx, k.pkg.Name, k.ch.Name, k.entry.Name); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.ListBundles(ctx, func(*api.Bundle) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for i, got := range kept {
		w, _ := proto.MarshalOptions{Deterministic: true}.Marshal(got)
		if !bytes.Equal(w, wire[i]) {
			t.Fatalf("answer %d (%s) changed after later calls", i, got.CsvName)
		}
	}
}

// A GetBundle reads the bundle's record into one buffer that its answer's manifests share, rather
// than copying every manifest out of it.
func TestGetBundleAllocatesItsRecordOnce(t *testing.T) {
	b, err := Open(context.Background(), Dir(writeCatalog(t, readCatalog)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	records := uint64(0)
	for _, k := range b.list {
		records += uint64(b.ix.Bundles[k.entry.Bundle].Body.Len)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, k := range b.list {
		if _, err := b.GetBundle(ctx, k.pkg.Name, k.ch.Name, k.entry.Name); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	const perCall = 4 << 10 // the api.Bundle and its small fields
	allocated, calls := after.TotalAlloc-before.TotalAlloc, uint64(len(b.list))
	if allocated > records+calls*perCall {
		t.Errorf("%d GetBundle calls allocated %d bytes for %d bytes of records: manifests are copied out of the record",
			calls, allocated, records)
	}
}
