package fbcbackend

// NormalizeJSON is a blob as opm serve and catalogd hold it: decoded into Go maps and re-encoded
// by encoding/json without HTML escaping (keys sorted, numbers through float64, compact). The
// result may share raw's memory.
func NormalizeJSON(raw []byte) ([]byte, error) { return normalizeJSON(raw) }
