package sqlite

import "database/sql"

// PackageRef names a package and says where it was seen.
type PackageRef struct {
	Name string
	// InPackageTable is false for a name that only channel_entry rows use (opm fails on those with
	// "unknown package").
	InPackageTable bool
	DefaultChannel sql.NullString
}

// PackageData is every row that belongs to one package, with what opm's migrations would have added
// for older schemas already filled in.
type PackageData struct {
	PackageRef
	// Channels are the channel table's rows for the package, sorted by name.
	Channels []ChannelRow
	// Entries are the package's channel_entry rows in entry_id order.
	Entries []EntryRow
	// Served are the (bundle, channel) rows opm's ListBundles query builds from the entries, with
	// replaces and skips exactly as that query computes them; see edges.go.
	Served []ServedBundle
	// Bundles are the operatorbundle rows that the package's entries name, by name. Names without a
	// row (skipped bundles that were never loaded) are absent.
	Bundles map[string]*BundleRow
}

// ChannelRow is a row of table channel.
type ChannelRow struct {
	Name string
	Head sql.NullString // head_operatorbundle_name
}

// EntryRow is a row of table channel_entry.
type EntryRow struct {
	ID       int64
	Channel  string
	Bundle   string
	Replaces sql.NullInt64 // entry_id of the replaced (or, for a synthetic pair, skipped) entry
	Depth    sql.NullInt64
}

// ServedBundle is one row of opm's ListBundles: a bundle in a channel with the upgrade edges opm
// derives from channel_entry.
type ServedBundle struct {
	Bundle   string
	Channel  string
	Replaces string
	Skips    []string
	// Exists is false when no operatorbundle row has the name; opm's query drops such rows.
	Exists bool
}

// BundleRow is a row of table operatorbundle plus the rows of other tables keyed by its name.
type BundleRow struct {
	Name string
	// Blob is the bundle column: every manifest as JSON, concatenated. Nil when NULL.
	Blob       []byte
	BundlePath sql.NullString
	Version    sql.NullString
	SkipRange  sql.NullString
	// DeclaredReplaces and DeclaredSkips are what the bundle's CSV declares: the replaces and skips
	// columns (schema 7+), or spec.replaces and spec.skips read from the csv column for older files.
	DeclaredReplaces string
	DeclaredSkips    []string
	// HasCSV reports that the csv column is not NULL or empty; read it with DB.BundleCSV.
	HasCSV bool
	// Properties and Dependencies are the rows of those tables in rowid order (for schemas before 9
	// and 8, the rows opm's migrations 008 and 009 would have written). Values are as stored.
	Properties   []TypedValue
	Dependencies []TypedValue
	// RelatedImages are the related_image rows in rowid order (duplicates kept).
	RelatedImages []string
	// Deprecated reports an olm.deprecated properties row (schema 9 and later), also when the
	// properties are not read (ReadPackageGraph).
	Deprecated bool

	contentsRead bool // Blob, Properties, Dependencies and RelatedImages are read
}

// TypedValue is a (type, value) row of the properties or dependencies table.
type TypedValue struct {
	Type  string
	Value string
}
