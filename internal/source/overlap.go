package source

// Overlap says how path a lies against path b, symbolic links followed (a link to b is b):
// "is" (the same file or directory), "lies inside", "contains", or "" when they are apart.
func Overlap(a, b string) string {
	ra, rb := realPath(a), realPath(b)
	switch {
	case ra == rb || sameFile(a, b):
		return "is"
	case within(ra, rb):
		return "lies inside"
	case within(rb, ra):
		return "contains"
	}
	return ""
}
