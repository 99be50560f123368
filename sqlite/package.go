package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// ReadPackage reads every row of one package. Its memory is that package's rows only.
func (d *DB) ReadPackage(ctx context.Context, ref PackageRef) (*PackageData, error) {
	return d.readPackage(ctx, ref, true)
}

// ContentsDeferrable reports whether ReadPackageGraph can leave the bundles' contents unread: for
// schema 9 and later, where the properties table says which bundles are deprecated. Older files
// derive properties from the manifests (migration 009) and are read whole.
func (d *DB) ContentsDeferrable() bool { return d.version >= 9 }

// ReadPackageGraph is ReadPackage without the bundles' contents (when ContentsDeferrable): the
// bundle column, properties, dependencies and related images are left empty, for
// ReadBundleContents to read for the bundles wanted; BundleRow.Deprecated is set. What the upgrade
// graph needs (entries, versions, skip ranges, images, declared edges) is read. A package of
// 25 bundles with their manifests costs the rows of 25 bundles without them.
func (d *DB) ReadPackageGraph(ctx context.Context, ref PackageRef) (*PackageData, error) {
	return d.readPackage(ctx, ref, !d.ContentsDeferrable())
}

// ReadBundleContents reads the contents ReadPackageGraph left out (the bundle column, properties,
// dependencies, related images) of the bundles of p named; names without a row, and bundles whose
// contents were read already, are passed over.
func (d *DB) ReadBundleContents(ctx context.Context, p *PackageData, names []string) error {
	idx, err := d.index(ctx)
	if err != nil {
		return err
	}
	sub := &PackageData{PackageRef: p.PackageRef, Entries: p.Entries, Bundles: map[string]*BundleRow{}}
	var unread []string
	for _, name := range names {
		if b := p.Bundles[name]; b != nil && !b.contentsRead && sub.Bundles[name] == nil {
			sub.Bundles[name] = b
			unread = append(unread, name)
		}
	}
	if len(unread) == 0 {
		return nil
	}
	if err := d.readBlobs(ctx, unread, sub.Bundles); err != nil {
		return err
	}
	if err := d.readBundleRelations(ctx, idx, sub); err != nil {
		return err
	}
	for _, b := range sub.Bundles {
		b.contentsRead = true
	}
	return nil
}

// readBlobs reads the bundle column of the bundles named.
func (d *DB) readBlobs(ctx context.Context, names []string, into map[string]*BundleRow) error {
	return d.eachIn(ctx, "reading table operatorbundle", `SELECT name, bundle FROM operatorbundle WHERE name IN `, ``, stringArgs(names), func(rows *sql.Rows) error {
		var (
			name string
			blob []byte
		)
		if err := rows.Scan(&name, &blob); err != nil {
			return err
		}
		if b := into[name]; b != nil {
			b.Blob = blob
		}
		return nil
	})
}

func (d *DB) readPackage(ctx context.Context, ref PackageRef, contents bool) (*PackageData, error) {
	idx, err := d.index(ctx)
	if err != nil {
		return nil, err
	}
	p := &PackageData{PackageRef: ref, Bundles: map[string]*BundleRow{}}
	p.Channels = slices.Clone(idx.channels[ref.Name])
	if p.Entries, err = d.readEntries(ctx, runIDs(idx.entriesByPackage[ref.Name])); err != nil {
		return nil, err
	}
	var names []string
	for _, e := range p.Entries {
		if _, ok := p.Bundles[e.Bundle]; !ok {
			p.Bundles[e.Bundle] = nil
			names = append(names, e.Bundle)
		}
	}
	if err := d.readBundles(ctx, names, p.Bundles, contents); err != nil {
		return nil, err
	}
	for name, b := range p.Bundles {
		if b == nil {
			delete(p.Bundles, name)
			continue
		}
		b.Deprecated = idx.deprecated[name]
		b.contentsRead = contents
	}
	if contents {
		if err := d.readBundleRelations(ctx, idx, p); err != nil {
			return nil, err
		}
	}
	byID := make(map[int64]string, len(p.Entries))
	for _, e := range p.Entries {
		byID[e.ID] = e.Bundle
	}
	target := func(id int64) (string, bool) {
		if name, ok := byID[id]; ok {
			return name, true
		}
		return d.entryBundle(ctx, id)
	}
	exists := func(name string) bool { return p.Bundles[name] != nil }
	p.Served = servedBundles(p.Entries, d.chain, target, exists)
	return p, nil
}

func (d *DB) readEntries(ctx context.Context, ids []int64) ([]EntryRow, error) {
	out := make([]EntryRow, 0, len(ids))
	err := d.eachIn(ctx, "reading table channel_entry", `SELECT entry_id, channel_name, operatorbundle_name, replaces, depth
		FROM channel_entry WHERE entry_id IN `, ` ORDER BY entry_id`, int64Args(ids), func(rows *sql.Rows) error {
		var (
			e               EntryRow
			channel, bundle sql.NullString
		)
		if err := rows.Scan(&e.ID, &channel, &bundle, &e.Replaces, &e.Depth); err != nil {
			return err
		}
		if !channel.Valid || !bundle.Valid {
			return nil // opm's queries cannot place such a row either
		}
		e.Channel, e.Bundle = channel.String, bundle.String
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// entryBundle resolves an entry_id outside the package being read (a hand-edited file can point
// replaces across packages).
func (d *DB) entryBundle(ctx context.Context, id int64) (string, bool) {
	var name sql.NullString
	err := d.sql.QueryRowContext(ctx, `SELECT operatorbundle_name FROM channel_entry WHERE entry_id = ?`, id).Scan(&name)
	if err != nil || !name.Valid {
		return "", false
	}
	return name.String, true
}

// readBundles reads the operatorbundle rows named, the bundle column (manifests) with blobs only.
func (d *DB) readBundles(ctx context.Context, names []string, into map[string]*BundleRow, blobs bool) error {
	blobColumn := "bundle"
	if !blobs {
		blobColumn = "NULL"
	}
	query := `SELECT name, ` + blobColumn + `, ` + d.col("operatorbundle", "bundlepath") + `, ` +
		d.col("operatorbundle", "version") + `, ` + d.col("operatorbundle", "skiprange") + `, ` +
		d.col("operatorbundle", "replaces") + `, ` + d.col("operatorbundle", "skips") +
		`, csv IS NOT NULL AND length(csv) > 0 FROM operatorbundle WHERE name IN `
	err := d.eachIn(ctx, "reading table operatorbundle", query, ``, stringArgs(names), func(rows *sql.Rows) error {
		var (
			b               BundleRow
			name            string
			blob            []byte
			replaces, skips sql.NullString
		)
		if err := rows.Scan(&name, &blob, &b.BundlePath, &b.Version, &b.SkipRange, &replaces, &skips, &b.HasCSV); err != nil {
			return err
		}
		b.Name, b.Blob = name, blob
		b.DeclaredReplaces = replaces.String
		b.DeclaredSkips = SplitSkips(skips.String)
		into[name] = &b
		return nil
	})
	if err != nil {
		return err
	}
	if d.version < 7 {
		return d.declaredEdgesFromCSV(ctx, into)
	}
	return nil
}

// BundleCSV returns the csv column of a bundle (nil when NULL or when there is no such bundle).
func (d *DB) BundleCSV(ctx context.Context, name string) ([]byte, error) {
	var csv []byte
	err := d.sql.QueryRowContext(ctx, `SELECT csv FROM operatorbundle WHERE name = ?`, name).Scan(&csv)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, classify(d.path, fmt.Sprintf("reading the csv of bundle %q", name), err)
	}
	return csv, nil
}

// readBundleRelations fills properties, dependencies and related images, from their tables or, for
// schemas that predate them, the way opm's migrations would have.
func (d *DB) readBundleRelations(ctx context.Context, idx *rowIndex, p *PackageData) error {
	if d.version >= 9 {
		if err := d.readTypedRows(ctx, "properties", idx.properties, p.Bundles, func(b *BundleRow, v TypedValue) {
			b.Properties = append(b.Properties, v)
		}); err != nil {
			return err
		}
	} else if err := d.legacyProperties(ctx, p); err != nil {
		return err
	}
	if d.version >= 8 {
		if err := d.readTypedRows(ctx, "dependencies", idx.dependencies, p.Bundles, func(b *BundleRow, v TypedValue) {
			b.Dependencies = append(b.Dependencies, v)
		}); err != nil {
			return err
		}
	} else if err := d.legacyDependencies(ctx, p.Bundles); err != nil {
		return err
	}
	if d.version >= 1 {
		return d.readImages(ctx, idx.images, p.Bundles)
	}
	return d.legacyImages(ctx, p.Bundles)
}

func rowidsOf(keys *keyIndex, bundles map[string]*BundleRow) []int64 {
	var ids []int64
	for name := range bundles {
		ids = keys.appendRowids(ids, name)
	}
	slices.Sort(ids)
	return slices.Compact(ids) // names of one hash share their runs
}

func (d *DB) readTypedRows(ctx context.Context, table string, keys *keyIndex, bundles map[string]*BundleRow, add func(*BundleRow, TypedValue)) error {
	return d.eachIn(ctx, "reading table "+table, `SELECT operatorbundle_name, type, CAST(value AS TEXT) FROM `+table+` WHERE rowid IN `, ` ORDER BY rowid`,
		int64Args(rowidsOf(keys, bundles)), func(rows *sql.Rows) error {
			var name, typ, value sql.NullString
			if err := rows.Scan(&name, &typ, &value); err != nil {
				return err
			}
			b := bundles[name.String]
			if b == nil || !typ.Valid {
				return nil
			}
			v := TypedValue{Type: typ.String, Value: value.String}
			if !value.Valid {
				v.Value = "null" // json_object renders a NULL value as JSON null
			}
			add(b, v)
			return nil
		})
}

func (d *DB) readImages(ctx context.Context, keys *keyIndex, bundles map[string]*BundleRow) error {
	return d.eachIn(ctx, "reading table related_image", `SELECT operatorbundle_name, image FROM related_image WHERE rowid IN `, ` ORDER BY rowid`,
		int64Args(rowidsOf(keys, bundles)), func(rows *sql.Rows) error {
			var name, image sql.NullString
			if err := rows.Scan(&name, &image); err != nil {
				return err
			}
			if b := bundles[name.String]; b != nil && image.Valid {
				b.RelatedImages = append(b.RelatedImages, image.String)
			}
			return nil
		})
}
