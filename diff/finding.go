package diff

import (
	"sort"

	"github.com/olmcat/olmcat/fbc/model"
)

// Severity says how much a finding matters to the users of a catalog.
type Severity string

const (
	// Breaking: installed users lose something they had (an upgrade path, a package, a channel), or the
	// new catalog is invalid.
	Breaking Severity = "breaking"
	// Warning: users keep working but something deserves a reviewer's look.
	Warning Severity = "warning"
	// Info: a change worth knowing about, harmless by itself.
	Info Severity = "info"
)

// Rank orders severities: breaking 3, warning 2, info 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Breaking:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// Category groups findings: what changed in the catalog text, what it does to upgrades, and
// problems with either input.
type Category string

const (
	CategoryCatalog    Category = "catalog"
	CategoryGraph      Category = "graph"
	CategoryValidation Category = "validation"
)

// Kind is the type of a finding. Its severity and category follow from it (see Rules).
type Kind string

// Catalog changes.
const (
	PackageAdded           Kind = "package-added"
	PackageRemoved         Kind = "package-removed"
	DefaultChannelChanged  Kind = "default-channel-changed"
	IconChanged            Kind = "icon-changed"
	DescriptionChanged     Kind = "description-changed"
	ChannelAdded           Kind = "channel-added"
	ChannelRemoved         Kind = "channel-removed"
	EntryAdded             Kind = "entry-added"
	EntryRemoved           Kind = "entry-removed"
	ReplacesChanged        Kind = "replaces-changed"
	SkipsChanged           Kind = "skips-changed"
	SkipRangeChanged       Kind = "skiprange-changed"
	BundleAdded            Kind = "bundle-added"
	BundleRemoved          Kind = "bundle-removed"
	BundleImageChanged     Kind = "bundle-image-changed"
	BundleVersionChanged   Kind = "bundle-version-changed"
	RepresentationChanged  Kind = "bundle-representation-changed"
	PropertyAdded          Kind = "property-added"
	PropertyRemoved        Kind = "property-removed"
	PropertyChanged        Kind = "property-changed"
	ProvidedAPIAdded       Kind = "provided-api-added"
	ProvidedAPIRemoved     Kind = "provided-api-removed"
	RequiredAPIAdded       Kind = "required-api-added"
	RequiredAPIRemoved     Kind = "required-api-removed"
	DependencyAdded        Kind = "dependency-added"
	DependencyRemoved      Kind = "dependency-removed"
	RelatedImageAdded      Kind = "related-image-added"
	RelatedImageRemoved    Kind = "related-image-removed"
	RelatedImageChanged    Kind = "related-image-changed"
	BundleObjectAdded      Kind = "bundle-object-added"
	BundleObjectRemoved    Kind = "bundle-object-removed"
	BundleObjectChanged    Kind = "bundle-object-changed"
	CSVMetadataChanged     Kind = "csv-metadata-changed"
	UnknownFieldChanged    Kind = "unknown-field-changed"
	DeprecationAdded       Kind = "deprecation-added"
	DeprecationRemoved     Kind = "deprecation-removed"
	DeprecationChanged     Kind = "deprecation-changed"
	OtherBlobAdded         Kind = "other-blob-added"
	OtherBlobRemoved       Kind = "other-blob-removed"
	OtherBlobChanged       Kind = "other-blob-changed"
	ChannelPropertyChanged Kind = "channel-property-changed"
)

// Upgrade-graph findings.
const (
	HeadChanged           Kind = "head-changed"
	HeadMovedBackwards    Kind = "head-moved-backwards"
	MultipleHeadsAppeared Kind = "multiple-heads-introduced"
	CycleIntroduced       Kind = "cycle-introduced"
	Stranded              Kind = "stranded"
	NewPath               Kind = "new-path"
	LongerPath            Kind = "longer-path"
	ShorterPath           Kind = "shorter-path"
	RemovedFromPath       Kind = "removed-from-path"
	HeadRequirementUnmet  Kind = "head-requirement-not-in-catalog"
)

// CRD upgrade safety findings (crdsafety.go): the checks OLM runs on a bundle's CRDs when it upgrades
// to it.
const (
	CRDUpgradeUnsafe    Kind = "crd-upgrade-unsafe"
	CRDUpgradeRisky     Kind = "crd-upgrade-risky"
	CRDUpgradeUnchecked Kind = "crd-upgrade-unchecked"
)

// Validation findings: problems of the inputs themselves.
const (
	ProblemIntroduced Kind = "problem-introduced"
	ProblemPersists   Kind = "problem-persists"
	ProblemFixed      Kind = "problem-fixed"
	ProblemChanged    Kind = "problem-changed"
)

// Rule is why a kind of finding has its severity.
type Rule struct {
	Category Category
	Severity Severity
	Why      string
}

// Rules is the severity rule of every kind of finding; SCHEMA.md documents the same table.
var Rules = map[Kind]Rule{
	PackageAdded:           {CategoryCatalog, Info, "a new package harms no installed user"},
	PackageRemoved:         {CategoryCatalog, Breaking, "installed users of the package get no more upgrades"},
	DefaultChannelChanged:  {CategoryCatalog, Warning, "new subscriptions without a channel land on a different graph"},
	IconChanged:            {CategoryCatalog, Info, "display only"},
	DescriptionChanged:     {CategoryCatalog, Info, "display only"},
	ChannelAdded:           {CategoryCatalog, Info, "a new channel harms no installed user"},
	ChannelRemoved:         {CategoryCatalog, Breaking, "subscriptions to the channel stop resolving"},
	EntryAdded:             {CategoryCatalog, Info, "graph findings judge what the new entry does to upgrades"},
	EntryRemoved:           {CategoryCatalog, Info, "graph findings judge what the removal does to upgrades"},
	ReplacesChanged:        {CategoryCatalog, Info, "graph findings judge what the edge change does to upgrades"},
	SkipsChanged:           {CategoryCatalog, Info, "graph findings judge what the edge change does to upgrades"},
	SkipRangeChanged:       {CategoryCatalog, Info, "graph findings judge what the edge change does to upgrades"},
	BundleAdded:            {CategoryCatalog, Info, "a new bundle harms no installed user"},
	BundleRemoved:          {CategoryCatalog, Info, "graph findings judge what the removal does to upgrades"},
	BundleImageChanged:     {CategoryCatalog, Warning, "the same bundle name now installs different content"},
	BundleVersionChanged:   {CategoryCatalog, Warning, "the same bundle name now claims another version, which moves skipRange matches"},
	RepresentationChanged:  {CategoryCatalog, Info, "the same CSV metadata is stored in another form"},
	PropertyAdded:          {CategoryCatalog, Info, "property of a type OLM gives no resolution meaning to"},
	PropertyRemoved:        {CategoryCatalog, Info, "property of a type OLM gives no resolution meaning to"},
	PropertyChanged:        {CategoryCatalog, Info, "property of a type OLM gives no resolution meaning to"},
	ProvidedAPIAdded:       {CategoryCatalog, Info, "more APIs provided harms no dependent"},
	ProvidedAPIRemoved:     {CategoryCatalog, Warning, "bundles that require the API may stop resolving"},
	RequiredAPIAdded:       {CategoryCatalog, Warning, "the bundle now needs an API some clusters may not have"},
	RequiredAPIRemoved:     {CategoryCatalog, Info, "fewer requirements harm no user"},
	DependencyAdded:        {CategoryCatalog, Warning, "the bundle now needs a package or constraint some clusters may not satisfy"},
	DependencyRemoved:      {CategoryCatalog, Info, "fewer requirements harm no user"},
	RelatedImageAdded:      {CategoryCatalog, Info, "mirroring lists change"},
	RelatedImageRemoved:    {CategoryCatalog, Info, "mirroring lists change"},
	RelatedImageChanged:    {CategoryCatalog, Warning, "the same bundle now pulls a different image"},
	BundleObjectAdded:      {CategoryCatalog, Info, "bundle manifest content changed"},
	BundleObjectRemoved:    {CategoryCatalog, Info, "bundle manifest content changed"},
	BundleObjectChanged:    {CategoryCatalog, Info, "bundle manifest content changed"},
	CSVMetadataChanged:     {CategoryCatalog, Info, "display and install-mode metadata changed"},
	UnknownFieldChanged:    {CategoryCatalog, Info, "a field olmcat does not interpret changed"},
	DeprecationAdded:       {CategoryCatalog, Info, "users are told to move; nothing stops working"},
	DeprecationRemoved:     {CategoryCatalog, Info, "a deprecation notice is withdrawn"},
	DeprecationChanged:     {CategoryCatalog, Info, "a deprecation message is reworded"},
	OtherBlobAdded:         {CategoryCatalog, Info, "blob of a schema OLM does not interpret"},
	OtherBlobRemoved:       {CategoryCatalog, Info, "blob of a schema OLM does not interpret"},
	OtherBlobChanged:       {CategoryCatalog, Info, "blob of a schema OLM does not interpret"},
	ChannelPropertyChanged: {CategoryCatalog, Info, "channel properties carry no upgrade meaning"},

	HeadChanged:           {CategoryGraph, Info, "the channel head moved to a higher version"},
	HeadMovedBackwards:    {CategoryGraph, Warning, "the head moved to a lower version, as a rollback does; OLM v0 follows replaces edges, not version order, and the users it cuts off are stranded findings (breaking)"},
	MultipleHeadsAppeared: {CategoryGraph, Breaking, "a channel with several heads is invalid and cannot be served"},
	CycleIntroduced:       {CategoryGraph, Breaking, "an upgrade cycle can loop installed users or hide the head"},
	Stranded:              {CategoryGraph, Breaking, "users of this bundle could upgrade to the head before and cannot now (OLM v0: the channel head; OLM v1: what a fresh install of the channel gets)"},
	NewPath:               {CategoryGraph, Info, "users of this bundle could not reach the head before and can now (OLM v0: the channel head; OLM v1: what a fresh install of the channel gets)"},
	LongerPath:            {CategoryGraph, Warning, "users of this bundle need more upgrades than before to reach the head"},
	ShorterPath:           {CategoryGraph, Info, "users of this bundle need fewer upgrades than before to reach the head"},
	RemovedFromPath:       {CategoryGraph, Warning, "the bundle was a step on other bundles' way to the head"},
	HeadRequirementUnmet:  {CategoryGraph, Warning, "OLM v0 upgrades the channel's users to the head only where another catalog provides what it requires; elsewhere they stay on their installed version"},

	V1InstallChanged:    {CategoryGraph, Info, "OLM v1 installs another bundle for new ClusterExtensions, a higher version or where it refused before"},
	V1InstallPrerelease: {CategoryGraph, Breaking, "OLM v1 installs a prerelease for new ClusterExtensions with no version range, where it installed a release"},
	V1InstallLowered:    {CategoryGraph, Warning, "OLM v1 installs a lower version than before for new ClusterExtensions"},
	V1InstallLost:       {CategoryGraph, Breaking, "OLM v1 refuses new ClusterExtensions it installed before"},
	V1UpgradeChanged:    {CategoryGraph, Info, "OLM v1 upgrades the users of this bundle to another, higher bundle, or now upgrades them"},
	V1UpgradePrerelease: {CategoryGraph, Breaking, "OLM v1 upgrades the users of this release to a prerelease with no version range asked"},
	V1UpgradeLowered:    {CategoryGraph, Warning, "OLM v1 upgrades the users of this bundle to a lower version than before"},
	V1UpgradeLost:       {CategoryGraph, Breaking, "OLM v1 upgraded the users of this bundle before and keeps them where they are (or refuses) now"},

	CRDUpgradeUnsafe:    {CategoryGraph, Breaking, "OLM refuses the upgrade because of a change to a CRD (OLM v1: its CRD upgrade safety preflight fails; OLM v0: a stored version is removed); users stay on the installed bundle"},
	CRDUpgradeRisky:     {CategoryGraph, Warning, "OLM v0 runs no CRD upgrade safety preflight: it replaces the CRD unless an existing custom resource fails the new schema, so a change OLM v1 refuses can break existing objects and their clients"},
	CRDUpgradeUnchecked: {CategoryGraph, Info, "CRD upgrade safety could not be judged: the bundles carry no manifests, or a CRD is not one the check can read"},

	ProblemIntroduced: {CategoryValidation, Breaking, "the new catalog has a problem the old one did not"},
	ProblemPersists:   {CategoryValidation, Warning, "both catalogs have this problem"},
	ProblemFixed:      {CategoryValidation, Info, "the old catalog's problem is gone"},
	ProblemChanged:    {CategoryValidation, Info, "both catalogs have this warning (same rule and place), in other words"},
}

// Finding is one typed, located change or upgrade consequence.
type Finding struct {
	Kind     Kind     `json:"kind"`
	Category Category `json:"category"`
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`
	Package  string   `json:"package,omitempty"`
	Channel  string   `json:"channel,omitempty"`
	Bundle   string   `json:"bundle,omitempty"`
	// Field narrows the location: a property type, a CSV metadata field, "Kind/name" of a bundle
	// object, the schema of another blob, the side ("old"/"new") of a validation problem.
	Field   string `json:"field,omitempty"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
	Message string `json:"message"`
	// OLM lists the generations of OLM the finding holds for (["v0"], ["v1"] or ["v0","v1"], as
	// olmcat validate's issues do); left out for findings that do not depend on the generation.
	OLM []model.Generation `json:"olm,omitempty"`
}

func newFinding(kind Kind, pkg, channel, bundle string) Finding {
	r, ok := Rules[kind]
	if !ok {
		r = Rule{CategoryCatalog, Info, "unclassified"}
	}
	return Finding{Kind: kind, Category: r.Category, Severity: r.Severity, Rule: r.Why,
		Package: pkg, Channel: channel, Bundle: bundle}
}

var categoryOrder = map[Category]int{CategoryValidation: 0, CategoryCatalog: 1, CategoryGraph: 2}

// sortFindings puts findings in their stable order: package, category, channel, bundle, kind, field,
// old, new, message.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.Package != b.Package:
			return a.Package < b.Package
		case a.Category != b.Category:
			return categoryOrder[a.Category] < categoryOrder[b.Category]
		case a.Channel != b.Channel:
			return a.Channel < b.Channel
		case a.Bundle != b.Bundle:
			return a.Bundle < b.Bundle
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		case a.Field != b.Field:
			return a.Field < b.Field
		case a.Old != b.Old:
			return a.Old < b.Old
		case a.New != b.New:
			return a.New < b.New
		}
		return a.Message < b.Message
	})
}
