package fbcbackend

import (
	"log/slog"

	"github.com/olmcat/olmcat/internal/scratch"
)

// The directories this process builds a cache in (a temporary cache in TMPDIR, a cache being
// built beside the final one) are scratch directories (scratch.MkdirTemp), locked by the process
// while it uses them. The kernel drops the lock when the process ends, however it ends (SIGKILL,
// OOM kill), so the next start removes the directories of servers that are gone, never those of
// a running server (see scratch.RemoveStale). Where flock is not available nothing is removed.
const (
	tempCachePrefix = "olmcat-serve-cache-"
	buildDirPrefix  = ".olmcat-serve-build-"
)

// removeStale removes the directories parent/prefix* left behind by processes that are gone.
func removeStale(parent, prefix string, log *slog.Logger) {
	for _, dir := range scratch.RemoveStale(parent, prefix) {
		log.Info("removed a cache directory left by a server that died", "dir", dir)
	}
}
