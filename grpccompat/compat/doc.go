// Package compat proves that two catalog servers answer every api.Registry client the same: the
// typical use is checking that an FBC migrated from an index.db (served like `opm serve`) answers
// exactly what `opm registry serve --database index.db` answered, before switching a catalog image.
//
// A Target is one side: an FBC directory or index.db served in-process by olmcat's two backends,
// a live server (grpc://host:port), or answers recorded from opm (the conformance corpus format).
// Check surveys both sides, derives an exhaustive deterministic query plan from the union of what
// they list (the plan format and order of the conformance corpus, see BuildPlan), sends every call
// to both, compares the answers field by field after the enabled normalizations (see
// Normalizations; each one is named after the difference of grpc-semantics.md §3 it absorbs) and
// returns a Report. TestParity does the same from a Go test.
package compat
