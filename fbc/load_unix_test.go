//go:build unix

package fbc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// Links to files inside the catalog are read (under the link's name); links out of it, links to
// directories (including a loop back to an ancestor), link cycles and dangling links are each
// reported, and none of them hangs the walk.
func TestWalkSymlinks(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.json": blobFile("x.y", "outside")})
	dir := writeTree(t, map[string]string{
		"real/catalog.json": blobFile("x.y", "real"),
	})
	symlink(t, "../real/catalog.json", mkdir(t, dir, "inside")+"/link.json")
	symlink(t, filepath.Join(outside, "secret.json"), filepath.Join(dir, "escape.json"))
	symlink(t, "real", filepath.Join(dir, "dirlink"))
	symlink(t, "..", filepath.Join(dir, "real", "loop"))
	symlink(t, "cycle-b", filepath.Join(dir, "cycle-a"))
	symlink(t, "cycle-a", filepath.Join(dir, "cycle-b"))
	symlink(t, "nowhere.json", filepath.Join(dir, "dangling.json"))

	files, errs := walkFiles(t, dir)
	if want := []string{"inside/link.json", "real/catalog.json"}; !slices.Equal(files, want) {
		t.Errorf("files read %v, want %v", files, want)
	}
	want := map[string]string{
		"cycle-a":       "broken symbolic link",
		"cycle-b":       "broken symbolic link",
		"dangling.json": "broken symbolic link",
		"dirlink":       "symbolic link to a directory",
		"escape.json":   "outside the catalog directory",
		"real/loop":     "symbolic link to a directory",
	}
	if len(errs) != len(want) {
		t.Fatalf("want %d problems, got %d: %v", len(want), len(errs), errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), want[e.Loc.File]) || !errors.Is(e, ErrNotRegularFile) {
			t.Errorf("%s: %v, want %q", e.Loc.File, e, want[e.Loc.File])
		}
	}
	for _, e := range errs {
		if strings.Contains(e.Error(), `"outside"`) {
			t.Errorf("the content of a file outside the catalog leaked into a message: %v", e)
		}
	}
}

func mkdir(t *testing.T, parent, name string) string {
	t.Helper()
	p := filepath.Join(parent, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWalkSpecialFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{"ok.json": blobFile("x.y", "ok")})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	files, errs := walkFiles(t, dir)
	if len(files) != 1 || len(errs) != 1 || errs[0].Loc.File != "pipe" || !strings.Contains(errs[0].Error(), "named pipe") {
		t.Errorf("files %v, problems %v", files, errs)
	}
}

// An unreadable file is reported by name and the rest still loads. Root reads everything, so as root
// the test runs itself again as user nobody.
func TestWalkUnreadableFile(t *testing.T) {
	if dir := os.Getenv("OLMCAT_UNREADABLE_TEST_DIR"); dir != "" {
		checkUnreadable(t, dir)
		return
	}
	dir := writeTree(t, map[string]string{"locked/catalog.json": blobFile("x.y", "a"), "ok.json": blobFile("x.y", "b")})
	if err := os.Chmod(filepath.Join(dir, "locked", "catalog.json"), 0); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		checkUnreadable(t, dir)
		return
	}
	runAsNobody(t, dir, "TestWalkUnreadableFile")
}

func checkUnreadable(t *testing.T, dir string) {
	files, errs := walkFiles(t, dir)
	if len(files) != 1 || len(errs) != 1 || errs[0].Loc.File != "locked/catalog.json" ||
		!errors.Is(errs[0], os.ErrPermission) || !strings.Contains(errs[0].Error(), "check its permissions") {
		t.Errorf("files %v, problems %v", files, errs)
	}
}

// runAsNobody runs one test of a copy of this test binary as user nobody, on a world-readable copy
// of dir's parent chain.
func runAsNobody(t *testing.T, dir, test string) {
	const nobody = 65534
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	shared, err := os.MkdirTemp("", "olmcat-loader-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	bin := filepath.Join(shared, "fbc.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	catalog := filepath.Join(shared, "catalog")
	if err := os.CopyFS(catalog, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(filepath.Join(catalog, "locked", "catalog.json"), 0)
	for _, p := range []string{shared, catalog, filepath.Join(catalog, "locked")} {
		_ = os.Chmod(p, 0o755)
	}
	_ = os.Chmod(filepath.Join(catalog, "ok.json"), 0o644)
	cmd := exec.Command(bin, "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), "OLMCAT_UNREADABLE_TEST_DIR="+catalog)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("run as nobody: %v\n%s", err, out)
	}
}

// The root itself may be a link: the user named it, so it is followed.
func TestWalkRootThroughSymlink(t *testing.T) {
	dir := writeTree(t, map[string]string{"cat/a/catalog.json": blobFile("x.y", "a")})
	symlink(t, filepath.Join(dir, "cat"), filepath.Join(dir, "link"))
	symlink(t, filepath.Join(dir, "cat", "a", "catalog.json"), filepath.Join(dir, "file-link.json"))
	for root, want := range map[string]string{
		filepath.Join(dir, "link"):           "a/catalog.json",
		filepath.Join(dir, "file-link.json"): filepath.Join(dir, "file-link.json"),
	} {
		files, errs := walkFiles(t, root)
		if errs != nil || !slices.Equal(files, []string{want}) {
			t.Errorf("%s: files %v, problems %v", root, files, errs)
		}
	}
}
