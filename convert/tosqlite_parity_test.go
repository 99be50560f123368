package convert

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/grpccompat/replay"
	"github.com/olmcat/olmcat/sqlite"
)

// TestServingParity is the parity proof of the FBC → index.db direction: for every conformance
// FBC, the index.db written from it, served by olmcat's SQL backend (which replays opm registry
// serve's recordings identically), answers every call of the plan that opm serve answered for the
// FBC, the same way up to the documented SQLite/FBC differences (docs/grpc-semantics.md §3, D-numbers
// below) and the losses the report names.
func TestServingParity(t *testing.T) {
	requireConformance(t)
	type parityCase struct{ name, catalog, recording string }
	var cases []parityCase
	fbcs, _ := filepath.Glob(filepath.Join(toSQLiteConformance, "fbc", "*", "grpc"))
	for _, rec := range fbcs {
		dir := filepath.Dir(rec)
		cases = append(cases, parityCase{"fbc/" + filepath.Base(dir), filepath.Join(dir, "catalog"), rec})
	}
	for _, dir := range sqliteCasesWithMigrate(t) {
		cases = append(cases, parityCase{"sqlite/" + filepath.Base(dir), filepath.Join(dir, "migrate"), filepath.Join(dir, "grpc-fbc")})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, _ := writeDB(t, loadCatalog(t, c.catalog), ToSQLiteOptions{})
			q, err := sqlite.NewQuerier(db)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			rec, err := replay.Load(c.recording)
			if err != nil {
				t.Fatal(err)
			}
			conn := replay.Serve(t, q, false)
			p := newParity(t, rec)
			compared, failures := 0, 0
			for _, call := range rec.Plan {
				if strings.HasPrefix(call.Method, "api.ExperimentalRegistry/") {
					continue // D1: opm registry serve has no ExperimentalRegistry service
				}
				got, err := replay.Invoke(context.Background(), conn, call)
				if err != nil {
					t.Fatalf("call %s: %v", call.ID, err)
				}
				compared++
				if diff := p.compare(call, rec.Answers[call.ID], got); diff != "" {
					failures++
					if failures <= 10 {
						t.Errorf("call %s %s %s: SQL answer differs from opm serve's (-opm serve +index.db):\n%.3000s", call.ID, call.Method, call.Request, diff)
					}
				}
			}
			if failures > 10 {
				t.Errorf("%d of %d calls differ", failures, compared)
			}
		})
	}
}

// parity compares one SQL answer with the FBC answer, normalizing what the two backends are
// documented to do differently.
type parity struct {
	t testing.TB
	// edges are the FBC's (package/channel/bundle) -> names it replaces or skips, from the recorded
	// ListBundles, to judge the nondeterministic GetBundleThatReplaces.
	edges map[string][]string
	// providers are the package/channel/bundle names that provide each group/version/kind.
	providers map[string]map[string]bool
}

func newParity(t testing.TB, rec *replay.Recording) *parity {
	p := &parity{t: t, edges: map[string][]string{}, providers: map[string]map[string]bool{}}
	for _, call := range rec.Plan {
		if call.Method != "api.Registry/ListBundles" {
			continue
		}
		var bundles []map[string]any
		_ = json.Unmarshal(rec.Answers[call.ID].Response, &bundles)
		for _, b := range bundles {
			key := str(b["packageName"]) + "/" + str(b["channelName"])
			for _, api := range list(b["providedApis"]) {
				gvk := gvkKey(api.(map[string]any))
				if p.providers[gvk] == nil {
					p.providers[gvk] = map[string]bool{}
				}
				p.providers[gvk][key+"/"+str(b["csvName"])] = true
			}
			for _, s := range append([]any{b["replaces"]}, list(b["skips"])...) {
				if name := str(s); name != "" {
					p.edges[key+"/"+name] = append(p.edges[key+"/"+name], str(b["csvName"]))
				}
			}
		}
	}
	return p
}

func (p *parity) compare(call replay.Call, want, got replay.Answer) string {
	var req map[string]any
	_ = json.Unmarshal(call.Request, &req)
	method := strings.TrimPrefix(call.Method, "api.Registry/")
	if want.Code != got.Code {
		if want.Code == "Unknown" && got.Code == "OK" && (method == "GetLatestChannelEntriesThatProvide" || method == "GetDefaultBundleThatProvides") {
			// D24, D25: opm serve looks at channel heads only; SQL finds the newest providing
			// entry even when the head no longer provides. Check that it does provide.
			return p.allProvide(gvkKey(req), method, got.Response)
		}
		return cmp.Diff(want.Code+": "+want.Message, got.Code+": "+got.Message)
	}
	if want.Code != "OK" {
		return "" // D2: same code; not-found texts differ between the backends
	}
	var w, g any
	if err := json.Unmarshal(want.Response, &w); err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(got.Response, &g); err != nil {
		return err.Error()
	}
	switch method {
	case "GetPackage":
		w, g = p.pkg(w), p.pkg(g)
	case "GetBundleForChannel":
		// D13: SQL answers only csvName and the csv column (with opm's trailing newline).
		w, g = headOnly(w), headOnly(g)
	case "GetBundle", "GetDefaultBundleThatProvides":
		w, g = p.bundle(w, false), p.bundle(g, false)
		if method == "GetDefaultBundleThatProvides" && str(w.(map[string]any)["csvName"]) != str(g.(map[string]any)["csvName"]) {
			// D25: SQL takes the newest providing entry of a default channel, FBC only heads.
			return p.allProvide(gvkKey(req), method, got.Response)
		}
	case "GetBundleThatReplaces":
		w, g = p.bundle(w, false), p.bundle(g, false)
		name := str(g.(map[string]any)["csvName"])
		if name != str(w.(map[string]any)["csvName"]) {
			// D26: either backend may pick any bundle that replaces or skips the name.
			key := str(req["pkgName"]) + "/" + str(req["channelName"]) + "/" + str(req["csvName"])
			for _, valid := range p.edges[key] {
				if valid == name {
					return ""
				}
			}
			return "csvName " + name + " does not replace or skip " + key
		}
	case "ListBundles":
		w, g = p.stream(w, func(m any) any { return p.bundle(m, true) }), p.stream(g, func(m any) any { return p.bundle(m, true) })
	case "GetChannelEntriesThatReplace", "GetChannelEntriesThatProvide":
		// D21, D22: SQL reports the edge target or dummy rows differently; the entries are the same.
		w, g = p.set(w, entryOnly), p.set(g, entryOnly)
	case "GetLatestChannelEntriesThatProvide":
		// D24: SQL keeps the newest providing entry per channel, FBC every edge of a providing head;
		// where both answer, they name the same channels.
		w, g = p.set(w, channelOnly), p.set(g, channelOnly)
	default:
		w, g = p.stream(w, nil), p.stream(g, nil)
	}
	return cmp.Diff(w, g)
}

func (p *parity) pkg(v any) any {
	m := v.(map[string]any)
	delete(m, "deprecation") // D6 (and a reported loss)
	chs := list(m["channels"])
	for _, c := range chs {
		delete(c.(map[string]any), "deprecation")
	}
	sort.Slice(chs, func(i, j int) bool {
		return str(chs[i].(map[string]any)["name"]) < str(chs[j].(map[string]any)["name"])
	})
	m["channels"] = chs // D5
	return m
}

func headOnly(v any) any {
	m := v.(map[string]any)
	return map[string]any{"csvName": m["csvName"], "csvJson": strings.TrimRight(str(m["csvJson"]), "\n")}
}

// bundle normalizes a Bundle message: D7 plural, D8 *.required properties, D9 value encoding, D10
// dependency types, D11 object order, D15 deprecation, D18 skips order, D20 duplicates.
func (p *parity) bundle(v any, listed bool) any {
	m := v.(map[string]any)
	delete(m, "deprecation")
	for _, k := range []string{"providedApis", "requiredApis"} {
		for _, api := range list(m[k]) {
			delete(api.(map[string]any), "plural")
		}
	}
	m["properties"] = p.typedValues(m["properties"], func(typ string) bool {
		return typ != "olm.gvk.required" && typ != "olm.package.required"
	})
	m["dependencies"] = p.typedValues(m["dependencies"], func(typ string) bool { return typ == "olm.gvk" || typ == "olm.package" })
	objs := list(m["object"])
	sort.Slice(objs, func(i, j int) bool { return str(objs[i]) < str(objs[j]) })
	if len(objs) > 0 {
		m["object"] = objs
	}
	if listed {
		skips := list(m["skips"])
		sort.Slice(skips, func(i, j int) bool { return str(skips[i]) < str(skips[j]) })
		if len(skips) > 0 {
			m["skips"] = skips
		}
	}
	return m
}

func (p *parity) typedValues(v any, keep func(string) bool) any {
	seen := map[string]bool{}
	var out []string
	for _, x := range list(v) {
		m := x.(map[string]any)
		typ := str(m["type"])
		if !keep(typ) {
			continue
		}
		key := typ + " " + canonicalJSON(p.t, []byte(str(m["value"])))
		if !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}

func (p *parity) stream(v any, each func(any) any) any {
	var out []string
	for _, m := range list(v) {
		if each != nil {
			m = each(m)
		}
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// set is stream with duplicates removed: the projections above map several messages to one.
func (p *parity) set(v any, each func(any) any) any {
	var out []string
	for _, s := range p.stream(v, each).([]string) {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

func gvkKey(m map[string]any) string {
	return str(m["group"]) + "/" + str(m["version"]) + "/" + str(m["kind"])
}

// allProvide checks that every bundle of an answer provides the API, per the FBC's ListBundles.
func (p *parity) allProvide(gvk, method string, resp []byte) string {
	var msgs []map[string]any
	if method == "GetDefaultBundleThatProvides" {
		var one map[string]any
		if err := json.Unmarshal(resp, &one); err != nil {
			return err.Error()
		}
		msgs = []map[string]any{one}
	} else if err := json.Unmarshal(resp, &msgs); err != nil {
		return err.Error()
	}
	for _, m := range msgs {
		name := str(m["bundleName"])
		if name == "" {
			name = str(m["csvName"])
		}
		key := str(m["packageName"]) + "/" + str(m["channelName"]) + "/" + name
		if !p.providers[gvk][key] {
			return key + " answered as providing " + gvk + ", which it does not provide"
		}
	}
	return ""
}

func entryOnly(v any) any {
	m := v.(map[string]any)
	return map[string]any{"packageName": m["packageName"], "channelName": m["channelName"], "bundleName": m["bundleName"]}
}

func channelOnly(v any) any {
	m := v.(map[string]any)
	return map[string]any{"packageName": m["packageName"], "channelName": m["channelName"]}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
