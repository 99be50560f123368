package crdsafety

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

const sharedDir = "../../../shared"

// verdict is one line of testdata/preflight-verdicts.jsonl: what operator-controller's
// crdupgradesafety preflight answered for one CRD of one upgrade.
//
// The file was recorded by a program outside this repository that links operator-controller at
// df2c201d unchanged: for every package of a catalog, every ordered pair of bundles (from, to)
// carrying a CRD of the same name, it read both bundles from their olm.bundle.object manifests
// with operator-controller's bundle reader (rukpak bundle/source, laid out as a bundle directory),
// rendered their CRDs with registryv1 generators.BundleCRDGenerator (cert-manager provider),
// created the from-CRD in a fake CRD client as the API server would (status cleared,
// apiextensions/v1 SetObjectDefaults_CustomResourceDefinition), and ran the preflight's Upgrade on
// the to-CRD. The catalogs: ../shared/conformance/fbc/{community-v4.12-bundleobject-subset,
// ocmirror-jaeger-product-json, migrate-yaml-opm-testdata-substitutesfor}, and "fixtures" = the
// hand-written cases of fixtures_test.go (dumped with TestDumpFixtures), both directions.
//
// Each error's lines (the preflight joins its failures with newlines after
// `validating upgrade for CRD "NAME": `) are kept sorted, since crdify's order follows Go map
// iteration, with the field list of "new required fields: [...]" sorted for the same reason;
// `sha256` digests them joined by newlines, `lines` quotes them when short.
type verdict struct {
	Catalog  string   `json:"catalog"`
	Package  string   `json:"package"`
	From     string   `json:"from"`
	To       string   `json:"to"`
	CRD      string   `json:"crd"`
	Failures int      `json:"failures"`
	SHA256   string   `json:"sha256"`
	Lines    []string `json:"lines"`
}

func readVerdicts(t *testing.T) []verdict {
	f, err := os.Open("testdata/preflight-verdicts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []verdict
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v verdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// bundlesOf maps package -> bundle name -> the bundle's manifests, for a recorded catalog.
func bundlesOf(t *testing.T, catalog string) map[string]map[string]*Manifests {
	out := map[string]map[string]*Manifests{}
	add := func(b *fbc.Bundle) {
		if out[b.Package] == nil {
			out[b.Package] = map[string]*Manifests{}
		}
		out[b.Package][b.Name] = FromBundle(b)
	}
	if catalog == "fixtures" {
		for _, f := range fixtures {
			o, n := f.bundles(t)
			add(o)
			add(n)
		}
		return out
	}
	dir := filepath.Join(sharedDir, catalog)
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	cat, err := fbc.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cat.Bundles {
		b := &cat.Bundles[i]
		if err := b.Decode(); err != nil {
			t.Fatal(err)
		}
		add(b)
	}
	return out
}

func failureLines(fails []Failure) []string {
	lines := make([]string, len(fails))
	for i, f := range fails {
		lines[i] = f.Message
	}
	slices.Sort(lines)
	return lines
}

// Every recorded verdict, real pairs and fixtures, in the preflight's words.
func TestCheckMatchesPreflightRecordings(t *testing.T) {
	catalogs := map[string]map[string]map[string]*Manifests{}
	compared, failing, skipped, unchecked := 0, 0, 0, 0
	for _, v := range readVerdicts(t) {
		cat, seen := catalogs[v.Catalog]
		if !seen {
			cat = bundlesOf(t, v.Catalog)
			catalogs[v.Catalog] = cat
		}
		if cat == nil {
			skipped++
			continue
		}
		from, to := cat[v.Package][v.From], cat[v.Package][v.To]
		if from == nil || to == nil || from.CRDs[v.CRD] == nil || to.CRDs[v.CRD] == nil {
			t.Errorf("%s: %s -> %s: CRD %s not found", v.Catalog, v.From, v.To, v.CRD)
			continue
		}
		if v.Catalog == jaegerCatalog && !slices.Contains(jaegerPairs, [2]string{v.From, v.To}) {
			continue
		}
		fc, tc := from.CRDs[v.CRD], to.CRDs[v.CRD]
		if tc.APIVersion != APIVersionV1 {
			// The preflight checks apiextensions.k8s.io/v1 CRDs only: it let this one pass
			// unchecked, and olmcat says it could not check it.
			if v.Failures != 0 {
				t.Errorf("%s: %s -> %s: the preflight failed a %s CRD", v.Catalog, v.From, v.To, tc.APIVersion)
			}
			if _, err := Check(fc, tc); err == nil || !strings.Contains(err.Error(), tc.APIVersion) {
				t.Errorf("%s: %s -> %s: Check of a %s CRD: %v", v.Catalog, v.From, v.To, tc.APIVersion, err)
			}
			unchecked++
			continue
		}
		fails, err := Check(fc, tc)
		if err != nil {
			t.Errorf("%s: %s -> %s: %v", v.Catalog, v.From, v.To, err)
			continue
		}
		lines := failureLines(fails)
		sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		switch {
		case len(lines) != v.Failures:
			t.Errorf("%s: %s -> %s, CRD %s: %d failures, the preflight had %d\ngot:  %s\nwant: %s", v.Catalog, v.From, v.To, v.CRD,
				len(lines), v.Failures, strings.Join(head(lines, 5), "\n      "), strings.Join(head(v.Lines, 5), "\n      "))
		case v.Failures > 0 && hex.EncodeToString(sum[:]) != v.SHA256:
			t.Errorf("%s: %s -> %s, CRD %s: failures differ from the preflight's\ngot:  %s\nwant: %s", v.Catalog, v.From, v.To, v.CRD,
				strings.Join(head(lines, 12), "\n      "), strings.Join(v.Lines, "\n      "))
		case v.Lines != nil && !slices.Equal(lines, v.Lines):
			t.Errorf("%s: %s -> %s: lines differ", v.Catalog, v.From, v.To)
		}
		compared++
		if v.Failures > 0 {
			failing++
		}
	}
	if skipped == 0 && (compared < 200 || failing < 50 || unchecked < 100) {
		t.Errorf("compared %d verdicts (%d failing, %d v1beta1): the recordings are incomplete", compared, failing, unchecked)
	}
	t.Logf("%d verdicts compared (%d failing), %d of v1beta1 CRDs the preflight skips, %d skipped (catalog absent)", compared, failing, unchecked, skipped)
}

// The jaeger CRD is large: crdify takes a second or two per pair of it. These pairs cover its
// verdicts' kinds: an upgrade failing on unhandled x-kubernetes-map-type additions (292 failures),
// one failing on their removal (10), a downgrade with 1,999 failures, a changed CRD that passes,
// and the same CRD under another bundle name.
const jaegerCatalog = "conformance/fbc/ocmirror-jaeger-product-json/catalog"

var jaegerPairs = [][2]string{
	{"jaeger-operator.v1.30.2", "jaeger-operator.v1.51.0-1"},
	{"jaeger-operator.v1.42.0-5", "jaeger-operator.v1.51.0-1"},
	{"jaeger-operator.v1.51.0-1", "jaeger-operator.v1.30.2"},
	{"jaeger-operator.v1.30.2", "jaeger-operator.v1.34.1-5"},
	{"jaeger-operator.v1.42.0-5", "jaeger-operator.v1.42.0-5-0.1687199951.p"},
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ../shared/conformance/olmv1/*/resolve.jsonl records, for the upgrades OLM v1 picked, what its
// crdupgradesafety preflight said of the picked bundle's CRDs (crdUpgradeSafety: "ok", or the
// preflight's whole error, every CRD's failures joined by newlines, in crdify's map order; or
// "not rendered: ..." when the bundle did not render). Each is held to Check over the CRDs the
// two bundles share.
func TestCheckMatchesOLMv1Recordings(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedDir, "conformance", "olmv1", "*", "resolve.jsonl"))
	if len(files) == 0 {
		t.Skipf("OLM v1 recordings not found under %s (run with /work/shared present)", sharedDir)
	}
	compared, failing := 0, 0
	for _, file := range files {
		catalog := filepath.Join("conformance", "fbc", filepath.Base(filepath.Dir(file)), "catalog")
		var cat map[string]map[string]*Manifests
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		done := map[[2]string]bool{}
		for sc.Scan() {
			var rec struct {
				Package   string `json:"package"`
				Installed *struct {
					Name string `json:"name"`
				} `json:"installed"`
				Bundle string `json:"bundle"`
				Safety string `json:"crdUpgradeSafety"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Safety == "" || strings.HasPrefix(rec.Safety, "not rendered") || rec.Installed == nil {
				continue
			}
			pair := [2]string{rec.Installed.Name, rec.Bundle}
			if done[pair] || catalog == jaegerCatalog && !slices.Contains(jaegerPairs, pair) {
				continue
			}
			done[pair] = true
			if cat == nil {
				cat = bundlesOf(t, catalog)
			}
			from, to := cat[rec.Package][pair[0]], cat[rec.Package][pair[1]]
			if from == nil || to == nil {
				t.Fatalf("%s: bundles %v not found", file, pair)
			}
			var got []string
			for _, name := range to.Names {
				if from.CRDs[name] == nil || to.CRDs[name].APIVersion != APIVersionV1 {
					continue
				}
				fails, err := Check(from.CRDs[name], to.CRDs[name])
				if err != nil {
					t.Fatalf("%s: %v: %v", file, pair, err)
				}
				got = append(got, failureLines(fails)...)
			}
			var want []string
			if rec.Safety != "ok" {
				for _, line := range strings.Split(rec.Safety, "\n") {
					if strings.HasPrefix(line, `validating upgrade for CRD "`) {
						_, line, _ = strings.Cut(line, `": `)
					}
					want = append(want, sortedRequiredLine(line))
				}
				failing++
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s -> %s:\ngot:  %s\nwant: %s", file, pair[0], pair[1],
					strings.Join(head(got, 8), "\n      "), strings.Join(head(want, 8), "\n      "))
			}
			compared++
		}
		f.Close()
	}
	if compared < 10 || failing < 3 {
		t.Errorf("compared %d recorded upgrades (%d failing): the recordings are incomplete", compared, failing)
	}
	t.Logf("%d recorded upgrades compared, %d of them refused", compared, failing)
}

// sortedRequiredLine sorts the field list of a preflight line "V: P: required: new required
// fields: [...]", as the recordings do.
func sortedRequiredLine(line string) string {
	const marker = ": required: "
	i := strings.Index(line, marker)
	if i < 0 {
		return line
	}
	return line[:i+len(marker)] + sortedRequired(line[i+len(marker):])
}
