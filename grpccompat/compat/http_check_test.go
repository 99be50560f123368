package compat

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/source"
)

func openHTTP(t *testing.T, spec string) HTTPTarget {
	t.Helper()
	tg, err := OpenHTTPTarget(context.Background(), spec, OpenOptions{})
	if err != nil {
		t.Fatalf("open %s: %v", spec, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func checkHTTP(t *testing.T, left, right HTTPTarget) *HTTPReport {
	t.Helper()
	r, err := CheckHTTP(context.Background(), left, right, HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// migrated is the FBC `olmcat migrate` writes for an index.db.
func migrated(t *testing.T, db string) string {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, db, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var b bytes.Buffer
	if err := src.WalkPackages(ctx, func(_ string, c *fbc.Catalog) error { return fbc.Write(&b, c, fbc.JSON) }); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// An index.db and the FBC olmcat migrates it to, each served by olmcat, answer the same blobs;
// also when one of them is reached by URL under catalogd's per-catalog prefix.
func TestHTTPIndexDBAndItsFBCAgree(t *testing.T) {
	for _, dir := range sqliteCases(t, false) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			db := openHTTP(t, filepath.Join(dir, "input.db"))
			r := checkHTTP(t, db, openHTTP(t, migrated(t, filepath.Join(dir, "input.db"))))
			if !r.Equal() || r.Queries < 8 || r.All.LeftBlobs == 0 {
				var b bytes.Buffer
				r.Write(&b, FormatText)
				t.Fatalf("not equal:\n%s", b.String())
			}
			live := openHTTP(t, db.(*namedHTTP).base.String()+"/catalogs/"+filepath.Base(dir))
			if r := checkHTTP(t, live, db); !r.Equal() {
				t.Errorf("the same server by URL differs: %+v", r.All)
			}
		})
	}
}

// One bundle changed, one removed: /api/v1/all and the metas queries that select them differ.
func TestHTTPSeededDifference(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "kube-green-replaces")
	edited := t.TempDir()
	out, err := os.Create(filepath.Join(edited, "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var changed, removed string
	err = fbc.Walk(migrated(t, filepath.Join(dir, "input.db")), func(b fbc.Blob) error {
		if b.Schema == fbc.SchemaBundle && changed == "" {
			changed = b.Name
			b.Data = bytes.Replace(b.Data, []byte(`"image"`), []byte(`"image": "example.com/seeded@sha256:00", "was"`), 1)
		} else if b.Schema == fbc.SchemaBundle && removed == "" {
			removed = b.Name
			return nil
		}
		_, err := out.Write(append(b.Data, '\n'))
		return err
	})
	out.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := checkHTTP(t, openHTTP(t, filepath.Join(dir, "input.db")), openHTTP(t, edited))
	var text bytes.Buffer
	r.Write(&text, FormatText)
	if r.Equal() || len(r.All.Changed) != 1 || !strings.Contains(r.All.Changed[0], changed) ||
		len(r.All.OnlyLeft) != 1 || !strings.Contains(r.All.OnlyLeft[0], removed) || r.DiffCount == 0 {
		t.Fatalf("seeded change of %s and removal of %s not reported:\n%s", changed, removed, text.String())
	}
	if !strings.Contains(text.String(), "name="+changed) || !strings.Contains(text.String(), "verdict: different") {
		t.Errorf("report does not name the changed bundle's query:\n%s", text.String())
	}
}

// A recorded answer set (all.jsonl, metas/QUERY.jsonl) compares with a server; a recorded metas
// answer that is wrong is caught.
func TestHTTPRecordedAnswers(t *testing.T) {
	db := openHTTP(t, filepath.Join(corpus(t), "sqlite", "kube-green-replaces", "input.db"))
	rec := t.TempDir()
	base := db.(*namedHTTP).base.String()
	save := func(u, file string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save(base+"/api/v1/all", filepath.Join(rec, RecordedAllFile))
	if r := checkHTTP(t, openHTTP(t, rec), db); !r.Equal() {
		t.Fatalf("recording of a server differs from it: %+v %+v", r.All, r.Different)
	}
	q := url.Values{"schema": {fbc.SchemaChannel}}
	save(base+"/api/v1/metas?schema="+fbc.SchemaPackage, filepath.Join(rec, RecordedMetasDir, url.QueryEscape(q.Encode())+".jsonl"))
	r := checkHTTP(t, openHTTP(t, rec), db)
	if r.Equal() || r.DiffCount != 1 || r.Different[0].Query != q.Encode() {
		t.Fatalf("a wrong recorded metas answer is not the one difference: %+v", r.Different)
	}
}
