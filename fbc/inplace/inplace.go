// Package inplace writes an edit of a File-Based Catalog back into the files it was read from,
// changing only the blobs the edit changed, where they stand, in each file's format and key order,
// so that git diff shows the edit and nothing else (issue 34).
package inplace

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
	"github.com/olmcat/olmcat/internal/plural"
)

// RefusedError is an in-place edit refused before any file was touched: the command line asked
// for what the catalog's files cannot take (a command's usage error).
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// FirstFile is the file of the first blob the snapshot holds, "" if none names one.
func (s *Snapshot) FirstFile() string {
	for _, b := range s.blobs {
		if b.loc.File != "" {
			return b.loc.File
		}
	}
	return ""
}

type editBlob struct {
	key    string // schema, package, name and occurrence: the same blob before and after the edit
	schema string
	pkg    string // the package it belongs to ("" for none)
	name   string
	value  any // fbc.Package, fbc.Channel, fbc.Bundle, fbc.Deprecation or fbc.Meta
	loc    fbc.Location
	sum    [32]byte // digest of its value (valueDigest): whether the edit changed it
}

// Snapshot is what an in-place edit remembers of the catalog before the edit.
type Snapshot struct {
	blobs []editBlob
	byKey map[string]*editBlob
}

func blobKey(schema, pkg, name string) string { return schema + "\x00" + pkg + "\x00" + name }

// keyOfRaw is the blob key (without occurrence) of a blob as read from a file: that of its
// decoded value, which is what the loaded catalog holds (the head the loader files a blob by
// matches keys case-insensitively, the decoder does not: "packAge" is no package there).
func keyOfRaw(b fbc.Blob) string {
	c := &fbc.Catalog{}
	if c.Add(b) == nil {
		if got := editBlobs(c); len(got) == 1 {
			k, _ := splitKey(got[0].key)
			return k
		}
	}
	switch b.Schema {
	case fbc.SchemaPackage:
		return blobKey(b.Schema, b.Name, b.Name)
	case fbc.SchemaDeprecations:
		return blobKey(b.Schema, b.Package, "")
	}
	return blobKey(b.Schema, b.Package, b.Name)
}

// encodeBlob is the JSON a blob is compared by: its MarshalJSON, without encoding/json's
// second pass over it (a third of the time of an in-place edit of a large catalog).
func encodeBlob(v any) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(v)
}

// valueDigest is a digest of every field of a blob value (a Package, Channel, Bundle,
// Deprecation or Meta) but its location: equal digests, equal blobs. Hashing the fields is a
// fraction of the time encoding the blob takes, which on a large catalog was most of an edit.
func valueDigest(v any) [32]byte {
	h := sha256.New()
	var buf [8]byte
	num := func(n uint64) {
		binary.LittleEndian.PutUint64(buf[:], n)
		h.Write(buf[:])
	}
	var walk func(r reflect.Value)
	walk = func(r reflect.Value) {
		switch r.Kind() {
		case reflect.String:
			num(uint64(r.Len()))
			io.WriteString(h, r.String())
		case reflect.Slice:
			num(uint64(r.Len()))
			if r.Type().Elem().Kind() == reflect.Uint8 {
				h.Write(r.Bytes())
				return
			}
			for i := range r.Len() {
				walk(r.Index(i))
			}
		case reflect.Map:
			keys := r.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			num(uint64(len(keys)))
			for _, k := range keys {
				walk(k)
				walk(r.MapIndex(k))
			}
		case reflect.Pointer, reflect.Interface:
			if r.IsNil() {
				num(0)
				return
			}
			num(1)
			walk(r.Elem())
		case reflect.Struct:
			if r.Type() == reflect.TypeFor[fbc.Location]() {
				return
			}
			for i := range r.NumField() {
				if r.Type().Field(i).IsExported() {
					walk(r.Field(i))
				}
			}
		case reflect.Bool:
			if r.Bool() {
				num(1)
			} else {
				num(0)
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			num(uint64(r.Int()))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			num(r.Uint())
		case reflect.Float32, reflect.Float64:
			num(math.Float64bits(r.Float()))
		default:
			io.WriteString(h, fmt.Sprintf("%#v", r.Interface()))
		}
	}
	walk(reflect.ValueOf(v))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// editBlobs lists the blobs of c with their keys (occurrences numbered in catalog order).
func editBlobs(c *fbc.Catalog) []editBlob {
	var out []editBlob
	seen := map[string]int{}
	add := func(schema, pkg, name string, v any, loc fbc.Location) {
		k := blobKey(schema, pkg, name)
		n := seen[k]
		seen[k]++
		out = append(out, editBlob{key: k + "\x00" + strconv.Itoa(n), schema: schema, pkg: pkg, name: name, value: v, loc: loc, sum: valueDigest(v)})
	}
	for _, p := range c.Packages {
		add(fbc.SchemaPackage, p.Name, p.Name, p, p.Loc)
	}
	for _, ch := range c.Channels {
		add(fbc.SchemaChannel, ch.Package, ch.Name, ch, ch.Loc)
	}
	for _, b := range c.Bundles {
		add(fbc.SchemaBundle, b.Package, b.Name, b, b.Loc)
	}
	for _, o := range c.Others {
		add(o.Schema, o.Package, o.Name, o, o.Loc)
	}
	for _, d := range c.Deprecations {
		add(fbc.SchemaDeprecations, d.Package, "", d, d.Loc)
	}
	return out
}

func TakeSnapshot(c *fbc.Catalog) (*Snapshot, error) {
	blobs := editBlobs(c)
	s := &Snapshot{blobs: blobs, byKey: make(map[string]*editBlob, len(blobs))}
	for i := range s.blobs {
		s.byKey[s.blobs[i].key] = &s.blobs[i]
	}
	return s, nil
}

// schemaRank is where opm's writer puts a schema within a package.
func schemaRank(schema string) int {
	switch schema {
	case fbc.SchemaPackage:
		return 0
	case fbc.SchemaChannel:
		return 1
	case fbc.SchemaBundle:
		return 2
	case fbc.SchemaDeprecations:
		return 4
	}
	return 3
}

// fileEdit is what an in-place edit does to one file.
type fileEdit struct {
	name     string // as the loader named it
	path     string // on disk
	replace  map[string]*editBlob
	remove   map[string]bool
	add      []*editBlob
	isNew    bool
	newFiles []*editBlob // the blobs of a new file, in opm's order
	// gone are the removed and rewritten blobs (apply sets them): their object files (refs of an
	// unpacked catalog) may be left without a user.
	gone []fbc.FilePiece
}

// Target says where the files of an FBC directory or file are.
type Target struct {
	Root   string // the catalog directory; for a single file, its directory
	Single string // the file, for an FBC file
	// SingleName is the file's name as the loader gave it
	SingleName string
	Ref        string // as the user gave it
	Format     fbc.Format
}

func (t Target) pathOf(name string) string {
	if t.Single != "" {
		return t.Single
	}
	return filepath.Join(t.Root, filepath.FromSlash(name))
}

// Write writes the edit of the catalog (before, as snapshot; after, the edited catalog)
// into the files of t: changed blobs replaced where they stand, removed ones cut out, new ones put
// in their package's file (a new package gets <root>/<package>/catalog.<ext>). Every file's new
// text is read back and checked before any is written; then all are put in place together.
func Write(t Target, before *Snapshot, after *fbc.Catalog) (summary []string, err error) {
	afterBlobs := editBlobs(after)
	edits := map[string]*fileEdit{}
	fileEditOf := func(name string) *fileEdit {
		e := edits[name]
		if e == nil {
			e = &fileEdit{name: name, path: t.pathOf(name), replace: map[string]*editBlob{}, remove: map[string]bool{}}
			edits[name] = e
		}
		return e
	}
	// The file of each package: the one holding its olm.package blob, or else its first blob's.
	pkgFile := map[string]string{}
	for _, b := range before.blobs {
		if b.schema == fbc.SchemaPackage && b.loc.File != "" {
			pkgFile[b.pkg] = b.loc.File
		}
	}
	for _, b := range before.blobs {
		if _, ok := pkgFile[b.pkg]; !ok && b.loc.File != "" {
			pkgFile[b.pkg] = b.loc.File
		}
	}
	inAfter := make(map[string]bool, len(afterBlobs))
	var added []*editBlob
	for i := range afterBlobs {
		a := &afterBlobs[i]
		inAfter[a.key] = true
		b := before.byKey[a.key]
		switch {
		case b == nil:
			added = append(added, a)
		case b.sum != a.sum:
			if b.loc.File == "" {
				return nil, fmt.Errorf("%s %q of package %q: cannot tell which file it came from", a.schema, a.name, a.pkg)
			}
			fileEditOf(b.loc.File).replace[a.key] = a
		}
	}
	for _, b := range before.blobs {
		if !inAfter[b.key] {
			if b.loc.File == "" {
				return nil, fmt.Errorf("%s %q of package %q: cannot tell which file it came from", b.schema, b.name, b.pkg)
			}
			fileEditOf(b.loc.File).remove[b.key] = true
		}
	}
	// New blobs go to their package's file; those of a new package to a new file of its own.
	slices.SortStableFunc(added, func(x, y *editBlob) int {
		return cmp.Or(cmp.Compare(x.pkg, y.pkg), cmp.Compare(schemaRank(x.schema), schemaRank(y.schema)), cmp.Compare(x.name, y.name))
	})
	var names outpath.Names
	for _, a := range added {
		if file, ok := pkgFile[a.pkg]; ok {
			if e := fileEditOf(file); e.isNew {
				e.newFiles = append(e.newFiles, a)
			} else {
				e.add = append(e.add, a)
			}
			continue
		}
		if t.Single != "" {
			e := fileEditOf(t.SingleName)
			e.add = append(e.add, a)
			continue
		}
		dir := t.Root
		if a.pkg != "" {
			if dir, err = names.Join(t.Root, outpath.Package, a.pkg, ""); err != nil {
				return nil, &RefusedError{err}
			}
		}
		rel, _ := filepath.Rel(t.Root, filepath.Join(dir, "catalog"+t.Format.Ext()))
		name := filepath.ToSlash(rel)
		pkgFile[a.pkg] = name
		e := fileEditOf(name)
		if _, err := os.Lstat(e.path); err == nil {
			return nil, &RefusedError{fmt.Errorf("--in-place would write package %q to %s, which exists and is not a catalog file of it: write the result with --output-dir DIR", a.pkg, e.path)}
		}
		e.isNew = true
		e.newFiles = append(e.newFiles, a)
	}
	var changes []atomicout.Change
	order := make([]string, 0, len(edits))
	for name := range edits {
		order = append(order, name)
	}
	sort.Strings(order)
	for _, name := range order {
		e := edits[name]
		change, note, err := e.apply(before)
		if err != nil {
			return nil, err
		}
		changes = append(changes, change)
		summary = append(summary, note)
	}
	if len(changes) == 0 {
		return nil, nil
	}
	orphans, err := orphanedObjects(t, before, edits)
	if err != nil {
		return nil, err
	}
	for _, o := range orphans {
		changes = append(changes, atomicout.Change{Path: o, Remove: true})
	}
	if len(orphans) > 0 {
		summary = append(summary, plural.Of(len(orphans), "object file")+" (removed)")
	}
	if err := atomicout.Files(t.Root, changes); err != nil {
		return nil, err
	}
	return summary, nil
}

// apply computes the new text of the file, checking it reads back as the edited blobs.
func (e *fileEdit) apply(before *Snapshot) (atomicout.Change, string, error) {
	if e.isNew {
		c := &fbc.Catalog{}
		for _, b := range e.newFiles {
			addValue(c, b.value)
		}
		format := fbc.JSON
		if ext := strings.ToLower(filepath.Ext(e.path)); ext == ".yaml" || ext == ".yml" {
			format = fbc.YAML
		}
		var buf bytes.Buffer
		if err := fbc.Write(&buf, c, format); err != nil {
			return atomicout.Change{}, "", err
		}
		if err := checkFileText(e.name, buf.Bytes(), e.newFiles, nil); err != nil {
			return atomicout.Change{}, "", err
		}
		return atomicout.Change{Path: e.path, Data: buf.Bytes()}, e.name + " (new)", nil
	}
	data, err := os.ReadFile(e.path)
	if err != nil {
		return atomicout.Change{}, "", fmt.Errorf("read %s again: %w", e.path, err)
	}
	ft, err := fbc.SplitFile(data, e.name)
	if err != nil {
		return atomicout.Change{}, "", fmt.Errorf("%s changed since it was read? %w; nothing was written", e.path, err)
	}
	// Name the pieces with the keys of the blobs loaded from this file.
	keys := make([]string, len(ft.Pieces))
	seen := map[string]int{}
	for i, p := range ft.Pieces {
		k := keyOfRaw(p.Blob)
		n := seen[k]
		seen[k]++
		keys[i] = k + "\x00" + strconv.Itoa(n)
	}
	loaded := 0
	for _, b := range before.blobs {
		if b.loc.File == e.name {
			loaded++
		}
	}
	if loaded != len(ft.Pieces) {
		return atomicout.Change{}, "", fmt.Errorf("%s holds %d blobs, %d when it was read: changed meanwhile? nothing was written", e.path, len(ft.Pieces), loaded)
	}
	occurrenceBase := map[string]int{} // the first occurrence number of each key of the file in the catalog
	for _, b := range before.blobs {
		if b.loc.File != e.name {
			continue
		}
		base, n := splitKey(b.key)
		if cur, ok := occurrenceBase[base]; !ok || n < cur {
			occurrenceBase[base] = n
		}
	}
	for i, k := range keys {
		base, n := splitKey(k)
		keys[i] = base + "\x00" + strconv.Itoa(occurrenceBase[base]+n)
		if b := before.byKey[keys[i]]; b == nil || b.loc.File != e.name {
			return atomicout.Change{}, "", fmt.Errorf("%s: the blob at line %d is not the one read there: changed meanwhile? nothing was written", e.path, ft.Pieces[i].Blob.Loc.Line)
		}
	}
	indent := "    "
	for _, p := range ft.Pieces {
		if !ft.YAML {
			indent = fbc.IndentOf(ft.Data[p.Start:p.End])
			break
		}
	}
	// Where each new blob goes: after piece i (-1: before the first piece).
	kept := func(i int) bool { return !e.remove[keys[i]] }
	inserts := map[int][]*editBlob{}
	for _, a := range e.add {
		at := insertPoint(ft, keys, kept, a)
		inserts[at] = append(inserts[at], a)
	}
	var out []byte
	var expect []*editBlob // the changed and new blobs, in file order
	var keptData [][]byte  // the kept blobs' JSON, in file order, nil for changed and new ones
	cursor := 0
	emitNew := func(at int) error {
		for _, a := range inserts[at] {
			like := siblingOrder(ft, keys, kept, a)
			text, err := fbc.EncodeLike(a.value, formatOf(ft), like, indent)
			if err != nil {
				return err
			}
			if len(out) > 0 && out[len(out)-1] != '\n' {
				out = append(out, '\n')
			}
			if ft.YAML {
				out = append(out, "---\n"...)
			}
			out = append(out, text...)
			expect, keptData = append(expect, a), append(keptData, nil)
		}
		return nil
	}
	if len(ft.Pieces) > 0 {
		out = append(out, data[:ft.Pieces[0].Start]...)
		cursor = ft.Pieces[0].Start
	}
	if err := emitNew(-1); err != nil {
		return atomicout.Change{}, "", err
	}
	if ft.YAML && len(inserts[-1]) > 0 && len(ft.Pieces) > 0 && !startsWithSeparator(data[ft.Pieces[0].Start:]) {
		out = append(out, "---\n"...)
	}
	remaining := 0
	for i, p := range ft.Pieces {
		end := p.End
		if !ft.YAML {
			end = lineTail(data, p.End)
		}
		out = append(out, data[cursor:p.Start]...)
		cursor = end
		a, changed := e.replace[keys[i]]
		if !kept(i) || changed {
			e.gone = append(e.gone, p)
		}
		switch {
		case !kept(i):
		case changed:
			text := data[p.Start:p.End]
			like := fbc.KeyOrderOf(text, ft.YAML)
			enc, err := fbc.EncodeLike(a.value, formatOf(ft), like, fbc.IndentOf(text))
			if err != nil {
				return atomicout.Change{}, "", err
			}
			if ft.YAML {
				if startsWithSeparator(text) {
					// The "---" line, with a comment it carries; not the start of a document
					// written on it ("--- {schema: ...}").
					line, _, _ := bytes.Cut(text, []byte("\n"))
					if rest := bytes.TrimSpace(line[3:]); len(rest) == 0 || rest[0] == '#' {
						out = append(append(out, line...), '\n')
					} else {
						out = append(out, "---\n"...)
					}
				}
				out = append(out, enc...)
				out = append(out, trailingNonContent(text)...)
			} else {
				out = append(out, bytes.TrimSuffix(enc, []byte("\n"))...)
				out = append(out, data[p.End:end]...)
			}
			expect, keptData = append(expect, a), append(keptData, nil)
			remaining++
		default:
			out = append(out, data[p.Start:end]...)
			expect, keptData = append(expect, nil), append(keptData, p.Blob.Data)
			remaining++
		}
		if err := emitNew(i); err != nil {
			return atomicout.Change{}, "", err
		}
	}
	out = append(out, data[cursor:]...)
	remaining += len(e.add)
	if remaining == 0 {
		return atomicout.Change{Path: e.path, Remove: true}, e.name + " (removed)", nil
	}
	if err := checkFileText(e.name, out, expect, keptData); err != nil {
		return atomicout.Change{}, "", err
	}
	return atomicout.Change{Path: e.path, Data: out}, e.name, nil
}

func formatOf(ft *fbc.FileText) fbc.Format {
	if ft.YAML {
		return fbc.YAML
	}
	return fbc.JSON
}

func splitKey(k string) (string, int) {
	i := strings.LastIndexByte(k, 0)
	n, _ := strconv.Atoi(k[i+1:])
	return k[:i], n
}

// lineTail is the end of a JSON blob ending at end with the rest of its line, when that is blank.
func lineTail(data []byte, end int) int {
	for i := end; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\r':
		case '\n':
			return i + 1
		default:
			return end
		}
	}
	return len(data)
}

// trailingNonContent is the blank lines and comment lines (a '#' in the first column) that end a
// YAML document's text, kept when the document is written again.
func trailingNonContent(text []byte) []byte {
	lines := bytes.SplitAfter(text, []byte("\n"))
	i := len(lines)
	for i > 1 { // never the first line: the separator, or content
		l := lines[i-1]
		if len(bytes.TrimSpace(l)) > 0 && l[0] != '#' {
			break
		}
		i--
	}
	return bytes.Join(lines[i:], nil)
}

func startsWithSeparator(b []byte) bool {
	return len(b) >= 3 && string(b[:3]) == "---" && (len(b) == 3 || b[3] == ' ' || b[3] == '\t' || b[3] == '\r' || b[3] == '\n')
}

// insertPoint is where a new blob goes among the file's kept blobs: after the blob of its package
// and schema that sorts before it by name (the blobs of that schema in name order) or after the
// last of them; with none, after its package's blobs of the schemas opm writes before it, or
// before those it writes after; else at the end. The result is the index of the piece it
// follows, -1 for the start.
func insertPoint(ft *fbc.FileText, keys []string, kept func(int) bool, a *editBlob) int {
	var same []int
	sorted := true
	for i, p := range ft.Pieces {
		if !kept(i) || pieceSchema(p) != a.schema || p.Blob.PackageName() != a.pkg {
			continue
		}
		if len(same) > 0 && ft.Pieces[same[len(same)-1]].Blob.Name > p.Blob.Name {
			sorted = false
		}
		same = append(same, i)
	}
	if len(same) > 0 {
		if sorted {
			for _, i := range same {
				if ft.Pieces[i].Blob.Name > a.name {
					return lastKeptBefore(i, kept)
				}
			}
		}
		return same[len(same)-1]
	}
	rank := schemaRank(a.schema)
	lastBefore, firstAfter := -2, -2
	for i, p := range ft.Pieces {
		if !kept(i) || p.Blob.PackageName() != a.pkg {
			continue
		}
		switch r := schemaRank(pieceSchema(p)); {
		case r <= rank:
			lastBefore = i
		case firstAfter == -2:
			firstAfter = i
		}
	}
	switch {
	case lastBefore != -2:
		return lastBefore
	case firstAfter != -2:
		return lastKeptBefore(firstAfter, kept)
	}
	return lastKeptBefore(len(ft.Pieces), kept)
}

func lastKeptBefore(i int, kept func(int) bool) int {
	for j := i - 1; j >= 0; j-- {
		if kept(j) {
			return j
		}
	}
	return -1
}

func pieceSchema(p fbc.FilePiece) string { return p.Blob.Schema }

// siblingOrder is the key order of a kept blob of the same schema in the file, which a new blob
// follows.
func siblingOrder(ft *fbc.FileText, keys []string, kept func(int) bool, a *editBlob) *fbc.KeyOrder {
	for i := len(ft.Pieces) - 1; i >= 0; i-- {
		if kept(i) && ft.Pieces[i].Blob.Schema == a.schema {
			return fbc.KeyOrderOf(ft.Data[ft.Pieces[i].Start:ft.Pieces[i].End], ft.YAML)
		}
	}
	return nil
}

func addValue(c *fbc.Catalog, v any) {
	switch x := v.(type) {
	case fbc.Package:
		c.Packages = append(c.Packages, x)
	case fbc.Channel:
		c.Channels = append(c.Channels, x)
	case fbc.Bundle:
		c.Bundles = append(c.Bundles, x)
	case fbc.Deprecation:
		c.Deprecations = append(c.Deprecations, x)
	case fbc.Meta:
		c.Others = append(c.Others, x)
	}
}

// checkFileText reads the new text of a file back: its blobs must be, in order, the kept ones
// (keptData[i] their JSON as read before) and the changed and new ones (want[i], keptData[i] nil).
func checkFileText(name string, text []byte, want []*editBlob, keptData [][]byte) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("in-place edit of %s: the new text does not read back as the edited catalog (%s); nothing was written: write the result with --output-dir DIR", name, fmt.Sprintf(format, args...))
	}
	ft, err := fbc.SplitFile(text, name)
	if err != nil {
		return fail("%v", err)
	}
	if len(ft.Pieces) != len(want) {
		return fail("%d blobs for %d", len(ft.Pieces), len(want))
	}
	if keptData == nil { // a new file, in the writer's order: match blobs by key
		want = slices.Clone(want)
		byKey := map[string][]*editBlob{}
		for _, w := range want {
			k := blobKey(w.schema, w.pkg, w.name)
			byKey[k] = append(byKey[k], w)
		}
		for i, p := range ft.Pieces {
			k := keyOfRaw(p.Blob)
			if len(byKey[k]) == 0 {
				return fail("unexpected %s blob at line %d", p.Blob.Schema, p.Blob.Loc.Line)
			}
			want[i], byKey[k] = byKey[k][0], byKey[k][1:]
		}
	}
	for i, p := range ft.Pieces {
		if keptData != nil && keptData[i] != nil {
			if !bytes.Equal(p.Blob.Data, keptData[i]) {
				return fail("blob at line %d", p.Blob.Loc.Line)
			}
			continue
		}
		c := &fbc.Catalog{}
		if err := c.Add(p.Blob); err != nil {
			return fail("%v", err)
		}
		got := editBlobs(c)
		if len(got) != 1 {
			return fail("blob at line %d", p.Blob.Loc.Line)
		}
		w := want[i]
		gotJSON, gerr := encodeBlob(got[0].value)
		wantJSON, werr := encodeBlob(w.value)
		if g, _ := splitKey(got[0].key); g != blobKey(w.schema, w.pkg, w.name) || gerr != nil || werr != nil || !bytes.Equal(gotJSON, wantJSON) {
			return fail("%s %q of package %q at line %d", w.schema, w.name, w.pkg, p.Blob.Loc.Line)
		}
	}
	return nil
}

// objectRefs lists the files the olm.bundle.object refs of the bundle blob b name (an unpacked
// catalog), as paths on disk: refs are relative to the directory of the blob's file, dir.
func objectRefs(b fbc.Blob, dir string) []string {
	if b.Schema != fbc.SchemaBundle || !bytes.Contains(b.Data, []byte(`"ref"`)) {
		return nil
	}
	c := &fbc.Catalog{}
	if c.Add(b) != nil || len(c.Bundles) != 1 {
		return nil
	}
	var out []string
	for _, p := range c.Bundles[0].Properties {
		if p.Type != property.TypeBundleObject {
			continue
		}
		var obj property.BundleObject
		if json.Unmarshal(p.Value, &obj) == nil && obj.Ref != "" {
			out = append(out, filepath.Join(dir, filepath.FromSlash(obj.Ref)))
		}
	}
	return out
}

// orphanedObjects lists the object files of an unpacked catalog that removed or rewritten bundles
// referred to and no kept bundle of the catalog does: they go with their bundles.
func orphanedObjects(t Target, before *Snapshot, edits map[string]*fileEdit) ([]string, error) {
	candidates := map[string]bool{}
	for _, e := range edits {
		for _, p := range e.gone {
			for _, ref := range objectRefs(p.Blob, filepath.Dir(e.path)) {
				candidates[ref] = true
			}
		}
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	files := map[string]bool{}
	for _, b := range before.blobs {
		if b.loc.File != "" {
			files[b.loc.File] = true
		}
	}
	for name := range files {
		path := t.pathOf(name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s again: %w", path, err)
		}
		if !bytes.Contains(data, []byte(`"ref"`)) && !bytes.Contains(data, []byte("ref:")) {
			continue
		}
		ft, err := fbc.SplitFile(data, name)
		if err != nil {
			return nil, fmt.Errorf("%s changed since it was read? %w; nothing was written", path, err)
		}
		gone := map[[2]int]bool{}
		if e := edits[name]; e != nil {
			for _, p := range e.gone {
				gone[[2]int{p.Start, p.End}] = true
			}
		}
		for _, p := range ft.Pieces {
			if gone[[2]int{p.Start, p.End}] {
				continue
			}
			for _, ref := range objectRefs(p.Blob, filepath.Dir(path)) {
				delete(candidates, ref)
			}
		}
	}
	root, _ := filepath.Abs(t.Root)
	var out []string
	for ref := range candidates {
		abs, err := filepath.Abs(ref)
		if err != nil || !strings.HasPrefix(abs, root+string(filepath.Separator)) {
			continue
		}
		if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() {
			out = append(out, abs)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SeveralCatalogs recognizes a root of several catalogs (catalogs/v4.17, catalogs/v4.18, ...):
// a directory in which packages have an olm.package blob in more than one of its top directories,
// each below a directory of its own there (catalogs/v4.18/P/catalog.yaml).
// It returns those directories in version order, or nil.
func SeveralCatalogs(c *fbc.Catalog) []string {
	topsOf := map[string]map[string]bool{}
	for _, p := range c.Packages {
		// A catalog among several holds its packages in directories of its own: top/P/file.
		top, rest, _ := strings.Cut(p.Loc.File, "/")
		if !strings.Contains(rest, "/") {
			top = ""
		}
		if topsOf[p.Name] == nil {
			topsOf[p.Name] = map[string]bool{}
		}
		topsOf[p.Name][top] = true
	}
	tops := map[string]bool{}
	for _, ts := range topsOf {
		if len(ts) < 2 {
			continue
		}
		for t := range ts {
			if t != "" {
				tops[t] = true
			}
		}
	}
	if len(tops) < 2 {
		return nil
	}
	dirs := make([]string, 0, len(tops))
	for d := range tops {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, naturalCompare)
	return dirs
}

// naturalCompare orders names with their digit runs compared as numbers: v4.9 before v4.18.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:da], 10, 64)
			nb, _ := strconv.ParseUint(b[:db], 10, 64)
			if c := cmp.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
