package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// What opm's migrations 001-009 would have written for a file at an older schema version, computed
// in memory instead of on disk. Each function names the migration it stands in for.

// legacyProperties stands in for migration 009: an olm.package row per (bundle, package) for bundles
// that provide an API, and an olm.gvk row per provided API.
func (d *DB) legacyProperties(ctx context.Context, p *PackageData) error {
	packagesOf := map[string][]string{}
	for _, e := range p.Entries {
		if !contains(packagesOf[e.Bundle], p.Name) {
			packagesOf[e.Bundle] = append(packagesOf[e.Bundle], p.Name)
		}
	}
	for _, name := range sortedKeys(p.Bundles) {
		b := p.Bundles[name]
		provided, err := d.providedAPIs(ctx, name)
		if err != nil {
			return err
		}
		if len(provided) == 0 {
			continue
		}
		for _, pkg := range packagesOf[name] {
			b.Properties = append(b.Properties, TypedValue{Type: "olm.package", Value: sqliteJSONObject("packageName", pkg, "version", b.Version)})
		}
		for _, g := range provided {
			b.Properties = append(b.Properties, TypedValue{Type: "olm.gvk", Value: goJSONMap(g)})
		}
	}
	return nil
}

// legacyDependencies stands in for migrations 003 (required APIs from the CSV, before schema 3),
// 008 (an olm.gvk dependency per required API) and 009 (which strips the "type" key).
func (d *DB) legacyDependencies(ctx context.Context, bundles map[string]*BundleRow) error {
	for _, name := range sortedKeys(bundles) {
		b := bundles[name]
		required, err := d.requiredAPIs(ctx, b)
		if err != nil {
			return err
		}
		for _, g := range required {
			b.Dependencies = append(b.Dependencies, TypedValue{Type: "olm.gvk", Value: goJSONMap(g)})
		}
	}
	return nil
}

// legacyImages stands in for migration 001: the CSV's operator images and spec.relatedImages.
func (d *DB) legacyImages(ctx context.Context, bundles map[string]*BundleRow) error {
	for _, name := range sortedKeys(bundles) {
		b := bundles[name]
		fields, err := d.csvFields(ctx, b)
		if err != nil || fields == nil {
			continue // migration 001 logs and skips bundles whose CSV it cannot read
		}
		seen := map[string]bool{}
		add := func(img string) {
			if !seen[img] {
				seen[img] = true
				b.RelatedImages = append(b.RelatedImages, img)
			}
		}
		for _, img := range fields.OperatorImages {
			add(img)
		}
		for _, ri := range fields.RelatedImages {
			add(ri.Image)
		}
	}
	return nil
}

// declaredEdgesFromCSV fills DeclaredReplaces/DeclaredSkips from the CSV for schemas before 7, which
// had no replaces/skips columns.
func (d *DB) declaredEdgesFromCSV(ctx context.Context, bundles map[string]*BundleRow) error {
	for _, b := range bundles {
		if b == nil {
			continue
		}
		fields, err := d.csvFields(ctx, b)
		if err != nil {
			return err
		}
		if fields != nil {
			b.DeclaredReplaces, b.DeclaredSkips = fields.Replaces, fields.Skips
		}
	}
	return nil
}

// csvFields parses a bundle's csv column; nil when it is NULL or empty.
func (d *DB) csvFields(ctx context.Context, b *BundleRow) (*CSVFields, error) {
	if !b.HasCSV {
		return nil, nil
	}
	csv, err := d.BundleCSV(ctx, b.Name)
	if err != nil {
		return nil, err
	}
	fields, err := ParseCSVFields(csv)
	if err != nil {
		return nil, fmt.Errorf("%s: bundle %q: %w", d.path, b.Name, err)
	}
	return fields, nil
}

// providedAPIs reads api_provider, keyed by bundle from schema 6 and by channel entry before.
func (d *DB) providedAPIs(ctx context.Context, bundle string) ([]GVK, error) {
	if !d.HasTable("api_provider") {
		return nil, &MissingSchemaError{Path: d.path, Version: d.version, Table: "api_provider"}
	}
	return d.apiRows(ctx, "api_provider", bundle)
}

// requiredAPIs reads api_requirer (schema 3+) or, before it existed, the CSV's required APIs.
func (d *DB) requiredAPIs(ctx context.Context, b *BundleRow) ([]GVK, error) {
	if d.version < 3 {
		fields, err := d.csvFields(ctx, b)
		if err != nil || fields == nil {
			return nil, err
		}
		return dedupGVKs(fields.RequiredAPIs), nil
	}
	if !d.HasTable("api_requirer") {
		return nil, &MissingSchemaError{Path: d.path, Version: d.version, Table: "api_requirer"}
	}
	return d.apiRows(ctx, "api_requirer", b.Name)
}

func (d *DB) apiRows(ctx context.Context, table, bundle string) ([]GVK, error) {
	query := `SELECT group_name, version, kind FROM ` + table + ` WHERE operatorbundle_name = ?`
	if !d.HasColumn(table, "operatorbundle_name") {
		query = `SELECT t.group_name, t.version, t.kind FROM ` + table + ` t
			JOIN channel_entry ce ON ce.entry_id = t.channel_entry_id WHERE ce.operatorbundle_name = ?`
	}
	rows, err := d.sql.QueryContext(ctx, query, bundle)
	if err != nil {
		return nil, classify(d.path, "reading table "+table, err)
	}
	defer rows.Close()
	var out []GVK
	for rows.Next() {
		var g, v, k sql.NullString
		if err := rows.Scan(&g, &v, &k); err != nil {
			return nil, classify(d.path, "reading table "+table, err)
		}
		if g.Valid && v.Valid && k.Valid {
			out = append(out, GVK{Group: g.String, Version: v.String, Kind: k.String})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, classify(d.path, "reading table "+table, err)
	}
	return dedupGVKs(out), nil
}

// dedupGVKs removes repeats and sorts, as the migrations collected GVKs in a set.
func dedupGVKs(in []GVK) []GVK {
	seen := map[GVK]bool{}
	var out []GVK
	for _, g := range in {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	return out
}

// goJSONMap encodes a GVK the way the migrations did: json.Marshal of a map, so keys sorted and
// HTML characters escaped.
func goJSONMap(g GVK) string {
	b, _ := json.Marshal(map[string]string{"group": g.Group, "kind": g.Kind, "version": g.Version})
	return string(b)
}

// sqliteJSONObject renders json_object(k1, v1, k2, v2) as SQLite does: no HTML escaping, NULL as null.
func sqliteJSONObject(k1, v1 string, k2 string, v2 sql.NullString) string {
	var b strings.Builder
	b.WriteString("{")
	b.WriteString(sqliteJSONString(k1) + ":" + sqliteJSONString(v1) + ",")
	b.WriteString(sqliteJSONString(k2) + ":")
	if v2.Valid {
		b.WriteString(sqliteJSONString(v2.String))
	} else {
		b.WriteString("null")
	}
	b.WriteString("}")
	return b.String()
}

func sqliteJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
