package sqlite

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// An index.db damaged or removed while it is served gives errors naming the file, never a panic
// or silently wrong answers.
func TestQuerierDatabaseChangedUnderneath(t *testing.T) {
	src := filepath.Join(queryConformanceDir, "kube-green-replaces", "input.db")
	in, err := os.Open(src)
	if err != nil {
		t.Skipf("conformance corpus not found: %v", err)
	}
	defer in.Close()
	db := filepath.Join(t.TempDir(), "index.db")
	out, err := os.Create(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	q, err := NewQuerier(db)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	if _, err := q.ListPackages(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(db, 8192); err != nil {
		t.Fatal(err)
	}
	err = q.ListBundles(ctx, func(*api.Bundle) error { return nil })
	if err == nil || !strings.Contains(err.Error(), db) {
		t.Errorf("ListBundles on a truncated index: %v; want an error naming %s", err, db)
	}
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	_, err = q.GetBundle(ctx, "kube-green", "alpha", "kube-green.v0.7.1")
	if err == nil || !strings.Contains(err.Error(), "no longer readable") {
		t.Errorf("GetBundle on a removed index: %v; want an error saying the file is gone", err)
	}
}
