package convert

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// sqliteRelatedImages gives the related_image rows: each distinct image of the FBC relatedImages
// (§5.3 item 8). Names have no column; on the way back opm takes them from the CSV's
// spec.relatedImages and gives every other image an empty name, so an FBC name the CSV does not
// carry is lost, and a CSV image the FBC list lacks comes back in addition.
func sqliteRelatedImages(b *model.Bundle, csv *storedObject, at Finding, r *SQLiteReport) []string {
	var images []string
	seen := map[string]bool{}
	for _, ri := range b.RelatedImages {
		if !seen[ri.Image] {
			seen[ri.Image] = true
			images = append(images, ri.Image)
		}
	}
	back := migratedRelatedImages(images, csv)
	unmatched := map[namedImage]int{}
	for _, ri := range back {
		unmatched[ri]++
	}
	var lost []namedImage
	for _, ri := range b.RelatedImages {
		key := namedImage{Name: ri.Name, Image: ri.Image}
		if unmatched[key] > 0 {
			unmatched[key]--
			continue
		}
		lost = append(lost, key)
	}
	for _, ri := range lost {
		if ri.Name == "" {
			continue // the CSV names this image: reported below as what comes back instead
		}
		f := at
		f.Kind, f.Detail = KindRelatedImageName, fmt.Sprintf("related image %s: name %q is not in the CSV's spec.relatedImages; index.db stores images without names", ri.Image, ri.Name)
		r.loss(f)
	}
	for _, ri := range back {
		if unmatched[ri] == 0 || ri.Name == "" {
			continue // an unnamed image stands for an FBC entry whose name was reported above
		}
		unmatched[ri]--
		f := at
		f.Kind, f.Detail = KindRelatedImageAdded, fmt.Sprintf("the CSV lists related image %s as %q, which the FBC relatedImages lack; index.db → FBC gives it back", ri.Image, ri.Name)
		r.change(f)
	}
	return images
}

// migratedRelatedImages is what opm migrate makes of a bundle's related images: the CSV's
// spec.relatedImages with their names, plus every other stored image with an empty name.
func migratedRelatedImages(stored []string, csv *storedObject) []namedImage {
	var out []namedImage
	inCSV := map[string]bool{}
	if csv != nil {
		for _, ri := range csv.Spec.RelatedImages {
			out = append(out, namedImage{Name: ri.Name, Image: ri.Image})
			inCSV[ri.Image] = true
		}
	}
	for _, img := range stored {
		if !inCSV[img] {
			out = append(out, namedImage{Image: img})
		}
	}
	return out
}

// namedImage is a related image without its unknown fields, usable as a map key.
type namedImage struct{ Name, Image string }

// decodeCSVIcon decodes a CSV icon the way opm migrate does: standard base64, retried once
// without spaces.
func decodeCSVIcon(s string) ([]byte, bool) {
	if data, err := base64.StdEncoding.DecodeString(s); err == nil {
		return data, true
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(s, " ", ""))
	return data, err == nil
}

// checkIconRoundTrip compares the package icon with the one opm migrate would read back from the
// default channel head's CSV.
func checkIconRoundTrip(pkg *model.Package, fromCSV *fbc.Icon, r *SQLiteReport) {
	at := Finding{Package: pkg.Name}
	switch {
	case pkg.Icon == nil && fromCSV == nil:
	case pkg.Icon == nil:
		at.Kind, at.Detail = KindIconAdded, "the package has no icon, but the default channel head's CSV has one; index.db → FBC gives the package that icon"
		r.change(at)
	case fromCSV == nil:
		at.Kind, at.Detail = KindPackageIcon, "index.db has no column for the package icon: opm takes it from the default channel head's CSV, which has none"
		r.loss(at)
	case !bytes.Equal(pkg.Icon.Data, fromCSV.Data) || pkg.Icon.MediaType != fromCSV.MediaType:
		at.Kind, at.Detail = KindPackageIcon, "index.db has no column for the package icon: opm takes it from the default channel head's CSV, whose icon differs"
		r.loss(at)
	}
}
