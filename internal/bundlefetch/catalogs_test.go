package bundlefetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/imagetest"
)

// rendered is the bundle of a corpus image as `opm render IMAGE` renders it, migrated to
// olm.csv.metadata when csvMetadata.
func rendered(t *testing.T, im imagetest.CorpusImage, csvMetadata bool) fbc.Bundle {
	t.Helper()
	b, err := bundledir.Parse(im.BundleDir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.Render(im.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if csvMetadata {
		var objects [][]byte
		for _, p := range r.Properties {
			if p.Type == property.TypeBundleObject {
				var o property.BundleObject
				if err := json.Unmarshal(p.Value, &o); err != nil {
					t.Fatal(err)
				}
				objects = append(objects, o.Data)
			}
		}
		if err := csvmeta.Migrate(&r, csvmeta.FindCSV(objects)); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// writeCatalog writes the blobs as a catalog file and returns its path.
func writeCatalog(t *testing.T, blobs ...any) string {
	t.Helper()
	var buf bytes.Buffer
	for _, b := range blobs {
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	file := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// Two catalogs: each bundle comes from the first that has it; a bundle the second holds
// differently is named on stderr; the report line counts the bundles of each.
func TestBundlesFromTwoCatalogs(t *testing.T) {
	_, images := corpusRegistry(t)
	images = images[:3]
	refs := refsOf(images)
	changed := rendered(t, images[1], false)
	changed.Properties = append(changed.Properties, fbc.Property{Type: "olm.maxOpenShiftVersion", Value: []byte(`"4.18"`)})
	first := writeCatalog(t, rendered(t, images[0], false), rendered(t, images[1], false))
	second := writeCatalog(t, changed, rendered(t, images[2], false))
	var log bytes.Buffer
	f := newFetcher(t, Options{BundlesFrom: []string{first, second, first}, Log: &log}) // a repeated one counts once
	got, err := f.RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, images, refs, got)
	if s := f.Stats(); s.Taken != 3 || s.Pulled != 0 {
		t.Errorf("stats %+v, want 3 taken", s)
	}
	for _, want := range []string{
		"olmcat: warning: bundle image " + refs[1] + ": --bundles-from " + first + " and " + second + " hold it differently",
		"taken from " + first + ", the first given",
		"olmcat: 3 bundle images: 2 from " + first + ", 1 from " + second + "\n",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, log.String())
		}
	}
	if n := strings.Count(log.String(), "hold it differently"); n != 1 {
		t.Errorf("%d bundles said to differ, want 1:\n%s", n, log.String())
	}
}

// A catalog's olm.csv.metadata bundle is taken only when the render prints that form: otherwise it
// is pulled (opm would print olm.bundle.object), and an image that cannot be pulled says which
// catalog holds it in which form. A bundle held as olm.bundle.object is taken either way.
func TestBundlesFromInAnotherForm(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = images[:2]
	refs := refsOf(images)
	catalog := writeCatalog(t, rendered(t, images[0], true), rendered(t, images[1], false))

	var log bytes.Buffer
	f := newFetcher(t, Options{BundlesFrom: []string{catalog}, Log: &log})
	got, err := f.RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, images, refs, got) // the olm.bundle.object bundles opm prints
	if s := f.Stats(); s.Taken != 1 || s.Pulled != 1 {
		t.Errorf("without CSVMetadata: stats %+v, want 1 taken (olm.bundle.object) and 1 pulled (olm.csv.metadata)", s)
	}
	if want := "olmcat: warning: 1 bundle image is in --bundles-from " + catalog + " as olm.csv.metadata"; !strings.Contains(log.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, log.String())
	}

	f = newFetcher(t, Options{BundlesFrom: []string{catalog}, CSVMetadata: true})
	reg.Reset()
	got, err = f.RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Taken != 2 || len(reg.PerPath()) != 0 {
		t.Errorf("with CSVMetadata: stats %+v, requests %v, want both taken", s, reg.PerPath())
	}
	if !bytes.Equal(marshal(t, got[0]), marshal(t, rendered(t, images[0], true))) {
		t.Error("with CSVMetadata: the olm.csv.metadata bundle is not the catalog's")
	}
	// The olm.bundle.object bundle is the pulled one, byte for byte: the migration template.Render
	// applies to both then gives the same olm.csv.metadata.
	if !bytes.Equal(marshal(t, got[1]), wantJSON(t, images[1].BundleDir, refs[1])) {
		t.Error("with CSVMetadata: the olm.bundle.object bundle taken is not the one pulling gives")
	}

	// Offline: the image is not there to pull.
	gone := rendered(t, images[0], true)
	gone.Image = "127.0.0.1:1/gone/bundle:v1"
	missing := "127.0.0.1:1/missing/bundle:v2"
	catalog = writeCatalog(t, gone)
	_, err = newFetcher(t, Options{BundlesFrom: []string{catalog}}).RenderBundles(context.Background(), []string{gone.Image, refs[1], missing})
	var all template.ImageErrors
	if !errors.As(err, &all) || len(all) != 2 {
		t.Fatalf("error %v (%T), want the 2 images that cannot be pulled", err, err)
	}
	if all[0].Ref != gone.Image || all[0].HeldBy != catalog || all[0].HeldAs != property.TypeCSVMetadata {
		t.Errorf("first: %+v, want %s held by %s as olm.csv.metadata", all[0], gone.Image, catalog)
	}
	if all[1].Ref != missing || all[1].HeldBy != "" {
		t.Errorf("second: %+v, want %s held by none", all[1], missing)
	}
}

// The icon of a package is its olm.package blob's in the first catalog that has one; a package no
// catalog has a blob of is said once.
func TestPackageIconFromTheCatalog(t *testing.T) {
	_, images := corpusRegistry(t)
	b := rendered(t, images[0], true)
	icon := &fbc.Icon{Data: []byte("<svg/>"), MediaType: "image/svg+xml"}
	with := writeCatalog(t, fbc.Package{Schema: fbc.SchemaPackage, Name: b.Package, Icon: icon}, b)
	without := writeCatalog(t, b)
	var log bytes.Buffer
	f := newFetcher(t, Options{BundlesFrom: []string{without, with}, CSVMetadata: true, Log: &log})
	if _, err := f.RenderBundles(context.Background(), []string{b.Image}); err != nil {
		t.Fatal(err)
	}
	got, known := f.PackageIcon(b.Package)
	if !known || got == nil || string(got.Data) != "<svg/>" || got.MediaType != "image/svg+xml" {
		t.Errorf("icon %+v (known %v), want the catalog's", got, known)
	}
	if _, known := f.PackageIcon("other-package"); known {
		t.Error("an icon for a package no catalog has")
	}
	f.PackageIcon("other-package")
	if n := strings.Count(log.String(), "package other-package: "); n != 1 {
		t.Errorf("the missing icon is said %d times, want once:\n%s", n, log.String())
	}
}
