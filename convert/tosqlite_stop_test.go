package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// A conversion stopped from outside (SIGTERM cancels the command's context) says it was stopped,
// whatever a stage was doing when it was cut off: issue 19 saw "sql: statement is closed".
func TestToSQLiteStoppedSaysCanceled(t *testing.T) {
	c, err := fbc.Load("../fixtures/catalog")
	if err != nil {
		t.Fatal(err)
	}
	parts := fbc.SplitByPackage(c)
	out := filepath.Join(t.TempDir(), "index.db")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	_, err = toSQLite(ctx, out, ToSQLiteOptions{}, func(add func(*fbc.Catalog) error) error {
		for i, p := range parts {
			if i == 1 {
				stop()
			}
			if err := add(p.Catalog); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped conversion: %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("a stopped conversion left %v", entries)
	}
}
