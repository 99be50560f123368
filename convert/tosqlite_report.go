package convert

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/internal/plural"
)

// SQLiteReport says what an FBC → index.db conversion wrote and, by name, everything of the catalog
// that the database does not hold as it was (docs/sqlite-fbc-mapping.md §4, "What SQLite cannot
// hold").
type SQLiteReport struct {
	Output string `json:"output"`
	// Committed is true when the database was written (false when --strict refused the losses).
	Committed bool           `json:"committed"`
	Written   SQLiteCounts   `json:"written"`
	Losses    []Finding      `json:"losses"`  // information the database does not hold at all
	Changes   []Finding      `json:"changes"` // held in another form: index.db → FBC gives it back differently
	Skipped   []*model.Issue `json:"skipped"` // invalid parts left out (--permissive), with the validation issue
}

// SQLiteCounts are the rows written.
type SQLiteCounts struct {
	Packages       int `json:"packages"`
	Channels       int `json:"channels"`
	Bundles        int `json:"bundles"`
	ChannelEntries int `json:"channelEntries"`
}

// Finding is one named piece of the catalog that did not cross into the database unchanged.
type Finding struct {
	Kind    string `json:"kind"` // stable identifier, one of the Kind* constants
	Package string `json:"package,omitempty"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	Detail  string `json:"detail"`
}

// Kinds of losses: the database has no place for the information.
const (
	KindDeprecation          = "deprecation"            // an olm.deprecations entry (the deprecated table is for truncation)
	KindCustomBlob           = "custom-blob"            // a blob of a non-core schema
	KindUnknownFields        = "unknown-fields"         // fields of a core blob that olmcat does not know
	KindChannelProperties    = "channel-properties"     // olm.channel properties
	KindPackageDescription   = "package-description"    // olm.package description
	KindPackageProperties    = "package-properties"     // olm.package properties
	KindPackageIcon          = "package-icon"           // icon differing from the default channel head's CSV icon
	KindSkipRangePerChannel  = "skiprange-per-channel"  // a bundle's skipRange differs between channels
	KindRelatedImageName     = "related-image-name"     // a relatedImages name the CSV does not carry
	KindObjectsWithoutCSV    = "objects-without-csv"    // bundle objects but no ClusterServiceVersion among them
	KindBundleObjectRef      = "bundle-object-ref"      // an olm.bundle.object given by reference, not inline data
	KindBundleObjectInvalid  = "bundle-object-invalid"  // an olm.bundle.object that is neither JSON nor YAML
	KindDeprecatedProperty   = "deprecated-property"    // olm.deprecated: opm migrate drops such bundles from an index.db
	KindDuplicateProperty    = "duplicate-property"     // repeated identical property; the database keeps one
	KindBundleWithoutChannel = "bundle-without-channel" // a bundle no channel lists
	KindReplacesDropped      = "replaces-dropped"       // replaces of an entry reachable only through a skip
)

// Kinds of changes: the information is in the database, in the closest form it allows.
const (
	KindReplacesAsSkip     = "replaces-as-skip"     // edge of an entry reachable only through a skip
	KindCSVSynthesized     = "csv-synthesized"      // olm.csv.metadata only: a CSV is synthesized as opm serve does
	KindCSVMetadataDropped = "csv-metadata-dropped" // olm.csv.metadata next to a real CSV object, which wins
	KindGVKCanonicalized   = "gvk-canonicalized"    // olm.gvk value rewritten in the exact form opm's queries match
	KindRelatedImageAdded  = "related-image-added"  // an image of the CSV that FBC relatedImages lacked
	KindObjectYAMLToJSON   = "object-yaml-to-json"  // a YAML bundle object stored as JSON
	KindIconAdded          = "package-icon-added"   // icon from the default head's CSV where the package had none
	KindDefaultChannelSet  = "default-channel-set"  // a single-channel package without defaultChannel gets it
	// KindDefaultHeadWithoutCSV: the data is all there, but opm migrate cannot read the result back.
	KindDefaultHeadWithoutCSV = "default-head-without-csv"
)

func (r *SQLiteReport) loss(f Finding)   { r.Losses = append(r.Losses, f) }
func (r *SQLiteReport) change(f Finding) { r.Changes = append(r.Changes, f) }

func (r *SQLiteReport) sort() {
	for _, list := range [][]Finding{r.Losses, r.Changes} {
		sort.SliceStable(list, func(i, j int) bool {
			a, b := list[i], list[j]
			if a.Package != b.Package {
				return a.Package < b.Package
			}
			if a.Kind != b.Kind {
				return a.Kind < b.Kind
			}
			if a.Channel != b.Channel {
				return a.Channel < b.Channel
			}
			return a.Bundle < b.Bundle
		})
	}
	if r.Losses == nil {
		r.Losses = []Finding{}
	}
	if r.Changes == nil {
		r.Changes = []Finding{}
	}
	if r.Skipped == nil {
		r.Skipped = []*model.Issue{}
	}
}

// WriteJSON writes the report as indented JSON.
func (r *SQLiteReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// Summary is a few lines for humans: counts, then the number of findings of each kind.
func (r *SQLiteReport) Summary() string {
	var b strings.Builder
	verb := "wrote"
	if !r.Committed {
		verb = "did not write"
	}
	fmt.Fprintf(&b, "olmcat: %s %s: %s, %s, %s, %s\n", verb, r.Output, plural.Of(r.Written.Packages, "package"),
		plural.Of(r.Written.Channels, "channel"), plural.Of(r.Written.Bundles, "bundle"), plural.Of(r.Written.ChannelEntries, "channel entry"))
	section := func(title string, list []Finding) {
		if len(list) == 0 {
			return
		}
		counts := map[string]int{}
		for _, f := range list {
			counts[f.Kind]++
		}
		kinds := make([]string, 0, len(counts))
		for k := range counts {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		fmt.Fprintf(&b, "olmcat: %s: %d\n", title, len(list))
		for _, k := range kinds {
			fmt.Fprintf(&b, "  %-26s %d\n", k, counts[k])
		}
	}
	section("not representable in index.db (lost)", r.Losses)
	section("stored in another form (comes back differently)", r.Changes)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "olmcat: left out as invalid (--permissive): %s\n", plural.Of(len(r.Skipped), "issue"))
	}
	return b.String()
}

// LossError is returned with --strict when something cannot be written as it is.
type LossError struct{ Report *SQLiteReport }

func (e *LossError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of the catalog cannot be represented in an index.db (--strict):", plural.Of(len(e.Report.Losses), "part"))
	for i, f := range e.Report.Losses {
		if i == 20 {
			fmt.Fprintf(&b, "\n  ... and %d more (see --report)", len(e.Report.Losses)-i)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

func (f Finding) String() string {
	var where []string
	if f.Package != "" {
		where = append(where, fmt.Sprintf("package %q", f.Package))
	}
	if f.Channel != "" {
		where = append(where, fmt.Sprintf("channel %q", f.Channel))
	}
	if f.Bundle != "" {
		where = append(where, fmt.Sprintf("bundle %q", f.Bundle))
	}
	if len(where) == 0 {
		return f.Kind + ": " + f.Detail
	}
	return f.Kind + ": " + strings.Join(where, ", ") + ": " + f.Detail
}
