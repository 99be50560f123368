package sqlite

// The rows of one package, as a Writer stores them. They are the tables' content already decided:
// the Writer does no conversion beyond NULL for empty optional values, exactly where opm's loader
// writes NULL (see AddPackage).

// PackageOut is everything one package contributes to an index.db.
type PackageOut struct {
	Name           string
	DefaultChannel string // must name one of Channels
	Channels       []ChannelOut
	Bundles        []BundleOut
}

// ChannelOut is one channel and its channel_entry rows.
type ChannelOut struct {
	Name string
	Head string // channel.head_operatorbundle_name; must be one of the package's Bundles
	// Entries in insertion order. entry_id values are assigned by the Writer, increasing in this
	// order across the whole database.
	Entries []EntryOut
}

// EntryOut is one channel_entry row.
type EntryOut struct {
	Bundle string // operatorbundle_name; need not be a bundle of the package (synthetic skip rows)
	Depth  int
	// Replaces is the index, in the same channel's Entries, of the row this row replaces; NoReplaces
	// for NULL.
	Replaces int
}

// NoReplaces marks an EntryOut whose replaces column is NULL.
const NoReplaces = -1

// BundleOut is one operatorbundle row with the rows of the tables keyed by it.
type BundleOut struct {
	Name string
	// CSV and Bundle are stored as BLOBs (as opm's loader binds []byte); nil stores NULL.
	CSV    []byte
	Bundle []byte
	// BundlePath, Version, SkipRange, Replaces, Skips, SubstitutesFor are stored as given ('' stays
	// ''), like the loader does for the operatorbundle columns.
	BundlePath     string
	Version        string
	SkipRange      string
	Replaces       string
	Skips          string
	SubstitutesFor string
	// Properties go to `properties` (TEXT values) in this order, Dependencies to `dependencies`
	// (BLOB values, as the loader stores json.RawMessage). Their version and path columns are the
	// bundle's Version and BundlePath, NULL when empty.
	Properties   []PropertyOut
	Dependencies []PropertyOut
	// ProvidedAPIs and RequiredAPIs get an `api` row (insert or ignore: the first plural written for
	// a GVK wins, as in the loader) and an api_provider / api_requirer row. Plural must not be empty.
	ProvidedAPIs []APIOut
	RequiredAPIs []APIOut
	// RelatedImages are distinct image references, one related_image row each.
	RelatedImages []string
}

// PropertyOut is one row of `properties` or `dependencies`.
type PropertyOut struct {
	Type  string
	Value string
}

// APIOut is a GVK with its resource plural.
type APIOut struct {
	Group, Version, Kind, Plural string
}
