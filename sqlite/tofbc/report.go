package tofbc

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/plural"
)

// DepartureCode names a kind of place where olmcat's conversion departs from what opm v1.72's
// `opm migrate` did with the same input.
type DepartureCode string

// The departures from opm. Each is a place where opm failed, panicked or silently lost data.
const (
	// Graph.
	CSVEdgeAdded            DepartureCode = "csv-edge-added"             // an edge the CSV declares, added (as a skip) so no bundle is stranded
	ReplacesRepeatedInSkips DepartureCode = "replaces-repeated-in-skips" // a served replaces edge the CSV does not declare, repeated as a skip
	SkipRangeEdgeAdded      DepartureCode = "skiprange-edge-added"       // a skip the CSV's skipRange already allows, added so no bundle is stranded
	StrandedSkipAdded       DepartureCode = "stranded-skip-added"        // a skip from the channel's replaces chain to a bundle only reachable through a skipped one
	EmptyChannelDropped     DepartureCode = "empty-channel-dropped"      // a channel row with no bundle left
	GraphUnrepaired         DepartureCode = "graph-unrepaired"           // a channel that is still invalid after the repairs above
	ChannelAdded            DepartureCode = "channel-added"              // entries name a channel with no channel row

	// Package.
	DefaultChannelChosen DepartureCode = "default-channel-chosen" // missing or unknown default channel (opm panics)
	IconUnavailable      DepartureCode = "icon-unavailable"       // the default channel head's CSV cannot be read (opm fails)
	PackageRowMissing    DepartureCode = "package-row-missing"    // entries name a package with no package row (opm fails)
	PackageDropped       DepartureCode = "package-dropped"        // a package with nothing left to write (opm fails)

	// Bundle.
	VersionRecovered        DepartureCode = "version-recovered"         // NULL or empty version column, taken from the CSV
	SkipRangeRecovered      DepartureCode = "skiprange-recovered"       // NULL skiprange column, taken from the CSV
	BundleDropped           DepartureCode = "bundle-dropped"            // a bundle that cannot be written at all
	ImageMissing            DepartureCode = "image-missing"             // NULL bundlepath written as "" (opm drops the bundle silently)
	DependencyKept          DepartureCode = "dependency-kept"           // a dependency type opm drops, kept as a property
	DeprecatedBundleKept    DepartureCode = "deprecated-bundle-kept"    // olm.deprecated bundle kept, with an olm.deprecations entry
	PackagePropertyFixed    DepartureCode = "package-property-fixed"    // several or a wrong olm.package property
	InvalidPropertyDropped  DepartureCode = "invalid-property-dropped"  // a property value that does not parse (opm fails)
	DependencyValuesKept    DepartureCode = "dependency-values-kept"    // migration 009 would have overwritten them
	BundleObjectsUnreadable DepartureCode = "bundle-objects-unreadable" // the bundle column does not parse (opm fails)
	CSVMissing              DepartureCode = "csv-missing"               // manifests without a ClusterServiceVersion (opm fails)
	RelatedImagesUnreadable DepartureCode = "related-images-unreadable" // spec.relatedImages does not parse (opm fails)
	SchemaVersionInferred   DepartureCode = "schema-version-inferred"   // no schema_migrations row (opm re-runs every migration and fails)
	CSVMetadataUnavailable  DepartureCode = "csv-metadata-unavailable"  // the CSV cannot be turned into olm.csv.metadata
)

// Departure is one place where the output differs from what opm v1.72 would have produced (or where
// opm would have produced nothing), and why.
type Departure struct {
	Code    DepartureCode `json:"code"`
	Package string        `json:"package,omitempty"`
	Channel string        `json:"channel,omitempty"`
	Bundle  string        `json:"bundle,omitempty"`
	// Opm is what opm v1.72 `migrate` did here; Olmcat is what olmcat did instead.
	Opm    string `json:"opm"`
	Olmcat string `json:"olmcat"`
	// AddedSkip is, for the graph repairs, the name added to the skips of Bundle in Channel.
	AddedSkip string `json:"addedSkip,omitempty"`
	// AddedProperty is, for dependency-kept, the property added to Bundle.
	AddedProperty *fbc.Property `json:"addedProperty,omitempty"`
}

func (d Departure) String() string {
	var where []string
	if d.Package != "" {
		where = append(where, "package "+d.Package)
	}
	if d.Channel != "" {
		where = append(where, "channel "+d.Channel)
	}
	if d.Bundle != "" {
		where = append(where, "bundle "+d.Bundle)
	}
	loc := strings.Join(where, ", ")
	if loc == "" {
		loc = "catalog"
	}
	return fmt.Sprintf("[%s] %s: opm: %s; olmcat: %s", d.Code, loc, d.Opm, d.Olmcat)
}

// Report is the outcome of a conversion: where olmcat departed from opm.
type Report struct {
	Input         string      `json:"input"`
	SchemaVersion int         `json:"schemaVersion"`
	Packages      int         `json:"packages"`
	Bundles       int         `json:"bundles"`
	Departures    []Departure `json:"departures"`
}

func (r *Report) add(d Departure) { r.Departures = append(r.Departures, d) }

// Sort orders departures by package, channel, bundle and code, for stable output.
func (r *Report) Sort() {
	sort.SliceStable(r.Departures, func(i, j int) bool {
		a, b := r.Departures[i], r.Departures[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Channel != b.Channel {
			return a.Channel < b.Channel
		}
		if a.Bundle != b.Bundle {
			return a.Bundle < b.Bundle
		}
		return a.Code < b.Code
	})
}

// Counts returns how many departures of each code there are.
func (r *Report) Counts() map[DepartureCode]int {
	out := map[DepartureCode]int{}
	for _, d := range r.Departures {
		out[d.Code]++
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	if out.Departures == nil {
		out.Departures = []Departure{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteSummary writes a short human summary: counts per code, then up to limit departures.
func (r *Report) WriteSummary(w io.Writer, limit int) {
	if len(r.Departures) == 0 {
		return
	}
	counts := r.Counts()
	codes := make([]string, 0, len(counts))
	for c := range counts {
		codes = append(codes, string(c))
	}
	sort.Strings(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%s %d", c, counts[DepartureCode(c)]))
	}
	fmt.Fprintf(w, "olmcat: %s from opm v1.72 migrate for %s (%s):\n", plural.Of(len(r.Departures), "departure"), r.Input, strings.Join(parts, ", "))
	for i, d := range r.Departures {
		if limit > 0 && i == limit {
			fmt.Fprintf(w, "  ... and %d more (use --report FILE for the full list)\n", len(r.Departures)-limit)
			break
		}
		fmt.Fprintf(w, "  %s\n", d)
	}
}
