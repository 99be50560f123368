package scratch

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every temporary file or directory olmcat makes in the system's temporary directory through this
// package has a name RemoveStale knows, so that what a killed run left is removed by the next one
// (olmcat build's directories were not, until this test).
func TestEveryTempNameIsKnownStale(t *testing.T) {
	made := regexp.MustCompile(`scratch\.(?:MkdirTemp|CreateTemp)(?:Locked)?\("", "([^"]*)"\)`)
	found := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "out" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range made.FindAllStringSubmatch(string(data), -1) {
			found++
			if !hasAnyPrefix(m[1], StalePrefixes) {
				t.Errorf("%s: temporary name %q has none of StalePrefixes: a killed run's leftover would stay", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Fatalf("found only %d temporary names: the pattern no longer matches the code", found)
	}
}
