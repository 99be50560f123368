package indeximage

import "strings"

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

// IsDockerArchive says whether ref names a docker archive (docker-archive:FILE), which holds one
// platform's image: commands writing a multi-arch index refuse it as a destination.
func IsDockerArchive(ref string) bool {
	return strings.HasPrefix(ref, DockerArchivePrefix)
}

// IsOCILayout says whether ref names an OCI layout directory (oci-layout:DIR[:TAG]).
func IsOCILayout(ref string) bool {
	return strings.HasPrefix(ref, OCILayoutPrefix)
}

// Untagged is ref without its tag or digest, to name a written digest with (REF@DIGEST):
// oci-layout:DIR:TAG gives oci-layout:DIR, quay.io/ns/olmcat:v1 gives quay.io/ns/olmcat. A
// reference that does not parse is given back as it is.
func Untagged(ref string) string {
	r, err := parseImageRef(ref, false)
	switch {
	case err != nil:
		return ref
	case r.kind == sourceOCILayout:
		return OCILayoutPrefix + r.path
	case r.kind == sourceRegistry:
		return strings.TrimSuffix(strings.TrimSuffix(ref, "@"+r.named.Identifier()), ":"+r.named.Identifier())
	}
	return ref
}
