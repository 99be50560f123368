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
//
// A difference is reported as one line per differing field, the same from run to run and always
// valid UTF-8:
//
//	GetBundle(etcd, alpha, etcdoperator.v0.9.2).properties[3].value $.group: left "a.example.com" right "b.example.com"
//	ListBundles[etcd/alpha/etcdoperator.v0.9.2].providedApis[1]: left {"group":"etcd.database.coreos.com","version":"v1beta2","kind":"EtcdBackup"} right (absent)
//	GetChannelEntriesThatReplace(etcdoperator.v0.9.0)[etcd/alpha/etcdoperator.v0.9.2 replaces etcdoperator.v0.9.0]: left (absent) right {"packageName":"etcd","channelName":"alpha","bundleName":"etcdoperator.v0.9.2","replaces":"etcdoperator.v0.9.0"}
//	GetPackage(etcd) status: left OK right Unknown "package \"etcd\" not found"
//	GetBundleForChannel(etcd, alpha): left bundle etcd/alpha/etcdoperator.v0.9.4 right bundle etcd/alpha/etcdoperator.v0.9.2
//
// The call is named by its method and its request's fields (trailing empty ones left out), a
// stream message by its identity (package/channel/bundle, a channel entry's replaces, a package
// name), a field by its JSON name, a list element by its index ([left/right] when elements were
// dropped or added before it: lists of different lengths are aligned on their common elements,
// so one dropped element is one line). A field set on one side only is (absent) on the other. A
// string holding a JSON object or array is compared as JSON, the path inside it named after the
// field's ($.group); "(same JSON, other text)" marks texts that differ only in their formatting.
// Strings are quoted with Go's escapes; a long one is shown as a window around its first
// difference, … marking the cuts; messages are compact JSON, cut with ….
package compat
