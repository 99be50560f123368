//go:build !unix

package atomicout

func mountPoint(string) (bool, error) { return false, nil }

func renameBlocked(error) bool { return false }
