package atomicout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckAgreesWithDirAndFile(t *testing.T) {
	root := t.TempDir()
	mkdir := func(name string) string {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := mkdir("full")
	writeIn(t, "x")(full)
	file := filepath.Join(root, "file")
	writeData(t, "x")(file)
	symlink(t, "full", filepath.Join(root, "to-full"))
	symlink(t, "nowhere/x", filepath.Join(root, "dangling"))
	paths := []string{filepath.Join(root, "new", "out"), mkdir("empty"), full, file,
		filepath.Join(root, "to-full"), filepath.Join(root, "dangling")}

	refused := 0
	for _, p := range paths {
		for _, dir := range []bool{true, false} {
			for _, force := range []bool{false, true} {
				checkErr := Check(p, force, dir)
				if _, err := os.Stat(filepath.Join(root, "new")); err == nil {
					t.Fatalf("Check(%s) created something", p)
				}
				open := File
				if dir {
					open = Dir
				}
				target, err := open(p, force)
				if err == nil {
					target.Abort()
				}
				if err := os.RemoveAll(filepath.Join(root, "new")); err != nil {
					t.Fatal(err)
				}
				if (checkErr == nil) != (err == nil) || (err != nil && checkErr.Error() != err.Error()) {
					t.Errorf("%s dir=%v force=%v: Check says %v, opening says %v", p, dir, force, checkErr, err)
				}
				if checkErr != nil {
					refused++
				}
			}
		}
	}
	if refused == 0 {
		t.Fatal("no case refused: the table tests nothing")
	}
	if err := Check(full, false, true); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("Check(non-empty dir) = %v, want a hint at --force", err)
	}
}
