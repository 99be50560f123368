package fbcbackend

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A directory this process builds a cache in (a temporary cache, or a cache being built beside
// the final one) holds a lock file that the process keeps locked (flock) while it uses the
// directory. The kernel drops the lock when the process ends, however it ends (SIGKILL, OOM
// kill), so such a directory whose lock can be taken was left behind by a dead process: the next
// start removes it. Directories without a lock file (older olmcat versions) are left alone, since
// nothing tells whether their process is alive. Where flock is not available nothing is removed.
const (
	tempCachePrefix = "olmcat-serve-cache-"
	buildDirPrefix  = ".olmcat-serve-build-"
	ownerLockFile   = "owner.lock"
	// staleAfter spares a directory whose lock file is so new that its process may not have
	// locked it yet.
	staleAfter = 10 * time.Second
)

// ownDir marks dir as used by this process until release is called.
func ownDir(dir string) (release func(), err error) {
	return lockOwner(filepath.Join(dir, ownerLockFile))
}

// removeStale removes the directories parent/prefix* left behind by processes that are gone.
// Best effort: a directory that cannot be removed is only logged.
func removeStale(parent, prefix string, log *slog.Logger) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		unlock, ok := lockIfStale(dir, filepath.Join(dir, ownerLockFile), staleAfter)
		if !ok {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("cannot remove a cache directory left by a server that died", "dir", dir, "error", err)
		} else {
			log.Info("removed a cache directory left by a server that died", "dir", dir)
		}
		unlock()
	}
}
