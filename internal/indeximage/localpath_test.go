package indeximage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestLocalPath(t *testing.T) {
	local := t.TempDir()
	for _, arg := range []string{local, "catalogs/prod", "-"} {
		p, cleanup, err := LocalPath(context.Background(), arg, Options{})
		if err != nil || p != arg {
			t.Errorf("LocalPath(%q) = %q, %v; want the argument itself", arg, p, err)
		}
		cleanup()
	}
	if _, err := os.Stat(local); err != nil {
		t.Errorf("cleanup of a local path removed it: %v", err)
	}

	host := startRegistry(t, nil)
	push(t, host+"/ns/index:v1", sqliteImage(t, amd64))
	p, cleanup, err := LocalPath(context.Background(), host+"/ns/index:v1", Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sameFile(t, p, sqliteFixture)
	cleanup()
	if _, err := os.Stat(filepath.Dir(p)); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s", filepath.Dir(p))
	}
	if _, _, err := LocalPath(context.Background(), host+"/ns/missing:v1", Options{}); err == nil {
		t.Error("a missing image gave no error")
	}
}
