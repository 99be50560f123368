package indeximage

// LocalImagePath returns the file or directory a local image reference reads (the OCI layout directory
// of oci-layout:DIR[:TAG], the archive of docker-archive:FILE), and false for a registry reference
// or a reference that does not parse. Output guards use it: nothing may be written over an input.
func LocalImagePath(ref string) (string, bool) {
	r, err := parseImageRef(ref, false)
	if err != nil || r.kind == sourceRegistry {
		return "", false
	}
	return r.path, true
}
