package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// The ListBundles stream kept on disk (a large index) is the stream kept in memory, message for
// message.
func TestListStreamFromMemoryAndFromFile(t *testing.T) {
	path := filepath.Join(conformanceDir, "sqlite", "synthetic-20x10", "input.db")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("conformance corpus not found at %s", conformanceDir)
	}
	collect := func(memory int) ([][]byte, bool) {
		old := listSpoolMemory
		listSpoolMemory = memory
		defer func() { listSpoolMemory = old }()
		q, err := NewQuerier(path)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for range 2 { // the second call reads the kept stream
			out = out[:0]
			if err := q.ListBundlesRaw(context.Background(), func(m api.PreEncoded) error {
				out = append(out, bytes.Clone(m.Bytes()))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		onDisk := q.list.sp.OnDisk()
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		return out, onDisk
	}
	inMemory, spilled := collect(64 << 20)
	onDisk, spilled2 := collect(1024)
	if spilled || !spilled2 {
		t.Fatalf("spooled to disk: %v (64 MB limit), %v (1 KB limit)", spilled, spilled2)
	}
	if len(inMemory) < 100 || len(inMemory) != len(onDisk) {
		t.Fatalf("%d messages in memory, %d from disk", len(inMemory), len(onDisk))
	}
	for i := range inMemory {
		if !bytes.Equal(inMemory[i], onDisk[i]) {
			t.Fatalf("message %d differs", i)
		}
	}
}
