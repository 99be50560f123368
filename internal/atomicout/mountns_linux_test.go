package atomicout

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

const inMountNS = "ATOMICOUT_IN_MOUNT_NAMESPACE"

// Real mount points, in a private mount namespace made by `unshare -rm`. Opt in with
// OLMCAT_MOUNT_TESTS=1; skipped when the namespace cannot be made.
func TestRealMountPoints(t *testing.T) {
	if os.Getenv(inMountNS) == "" {
		if os.Getenv("OLMCAT_MOUNT_TESTS") == "" {
			t.Skip("set OLMCAT_MOUNT_TESTS=1 to write into real mount points (needs unshare -rm)")
		}
		if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
			t.Skipf("cannot make a mount namespace with unshare -rm: %v", err)
		}
		cmd := exec.Command("unshare", "-rm", os.Args[0], "-test.run=^TestRealMountPoints$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), inMountNS+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in the mount namespace:\n%s", out)
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	mount := func(t *testing.T, source, target, fstype string, flags uintptr) {
		t.Helper()
		if err := syscall.Mount(source, target, fstype, flags, ""); err != nil {
			t.Fatalf("mount %s on %s: %v", source, target, err)
		}
		t.Cleanup(func() { syscall.Unmount(target, syscall.MNT_DETACH) })
	}
	setup := func(t *testing.T, bind bool) (parent, out, backing string) {
		parent = t.TempDir()
		out = filepath.Join(parent, "out")
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if bind { // same device as the parent: only the failing rename tells
			backing = filepath.Join(parent, "volume")
			if err := os.Mkdir(backing, 0o755); err != nil {
				t.Fatal(err)
			}
			mount(t, backing, out, "", syscall.MS_BIND)
		} else {
			mount(t, "tmpfs", out, "tmpfs", 0)
			backing = out
		}
		writeIn(t, "old")(out)
		return parent, out, backing
	}
	for _, bind := range []bool{false, true} {
		name := map[bool]string{false: "tmpfs", true: "bind"}[bind]
		t.Run(name+"/commit", func(t *testing.T) {
			parent, out, backing := setup(t, bind)
			if _, err := Dir(out, false); err == nil {
				t.Error("non-empty mounted output accepted without force")
			}
			target, err := Dir(out, true)
			mustCommit(t, target, err, func(dir string) {
				writeIn(t, "new")(dir)
				if err := os.Mkdir(filepath.Join(dir, "pkg"), 0o755); err != nil {
					t.Fatal(err)
				}
				writeIn(t, "catalog.json")(filepath.Join(dir, "pkg"))
			})
			if got := entries(t, backing); !slices.Equal(got, []string{"new", "pkg"}) {
				t.Errorf("volume holds %v, want [new pkg]", got)
			}
			if _, err := os.Stat(filepath.Join(out, "pkg", "catalog.json")); err != nil {
				t.Error(err)
			}
			if got := entries(t, parent); !slices.Equal(got, []string{"out"}) && !slices.Equal(got, []string{"out", "volume"}) {
				t.Errorf("parent holds %v: temporary output left behind", got)
			}
		})
		t.Run(name+"/abort", func(t *testing.T) {
			parent, out, backing := setup(t, bind)
			target, err := Dir(out, true)
			if err != nil {
				t.Fatal(err)
			}
			writeIn(t, "new")(target.Path())
			target.Abort()
			if got := entries(t, backing); !slices.Equal(got, []string{"old"}) {
				t.Errorf("volume holds %v after Abort, want [old]", got)
			}
			if got := entries(t, parent); len(got) > 2 {
				t.Errorf("parent holds %v after Abort", got)
			}
		})
	}
	t.Run("file", func(t *testing.T) {
		parent := t.TempDir()
		out, backing := filepath.Join(parent, "index.db"), filepath.Join(parent, "volume.db")
		writeData(t, "old")(out)
		writeData(t, "")(backing)
		mount(t, backing, out, "", syscall.MS_BIND)
		target, err := File(out, true)
		mustCommit(t, target, err, writeData(t, "new"))
		if data, _ := os.ReadFile(backing); string(data) != "new" {
			t.Errorf("mounted file holds %q, want new", data)
		}
		if got := entries(t, parent); len(got) != 2 {
			t.Errorf("parent holds %v: temporary output left behind", got)
		}
	})
}

func TestMountPointDetection(t *testing.T) {
	plain := t.TempDir()
	if got, err := mountPoint(plain); err != nil || got {
		t.Errorf("mountPoint(%s) = %v, %v; a plain directory is not one", plain, got, err)
	}
	if got, err := mountPoint("/"); err != nil || !got {
		t.Errorf("mountPoint(/) = %v, %v; the root cannot be renamed", got, err)
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	if got, err := mountPoint("/proc"); err != nil || !got {
		t.Errorf("mountPoint(/proc) = %v, %v; procfs is its own device", got, err)
	}
}

func TestBlockedRenameCopyFailureKeepsOldContent(t *testing.T) {
	parent, out, _ := volume(t)
	target, err := Dir(out, true)
	if err != nil {
		t.Fatal(err)
	}
	defer target.Abort()
	writeIn(t, "new")(target.Path())
	if err := syscall.Mkfifo(filepath.Join(target.Path(), "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	failRename(t, syscall.EBUSY, func(from, to string) bool { return from == out })
	if err := target.Commit(); err == nil {
		t.Fatal("Commit copied a tree it cannot copy")
	}
	if got := entries(t, out); !slices.Equal(got, []string{"old"}) {
		t.Errorf("output holds %v, want [old]", got)
	}
	if got := entries(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("parent holds %v", got)
	}
}
