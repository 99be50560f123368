//go:build !unix || aix || solaris

package scratch

import "os"

// Without flock an entry's owner cannot be told alive or dead: nothing is locked and nothing is
// removed.

func lockAndCheck(string, os.FileInfo) (unlock func(), ok bool) { return func() {}, true }

func lockIfAbandoned(string) (unlock func(), ok bool) { return nil, false }
