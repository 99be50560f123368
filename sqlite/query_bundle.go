package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/grpccompat/api"
	"google.golang.org/protobuf/proto"
)

// The property and dependency type that carries a GroupVersionKind.
const queryGVKType = "olm.gvk"

// queryBundleRow is what the single-bundle queries select before the bundle is completed. The
// manifests (operatorbundle.bundle) are not selected with it: they are read by name when the
// bundle is not in the querier's cache of completed bundles.
type queryBundleRow struct {
	name, bundlePath, version, skipRange sql.NullString
	hasBlob                              bool // bundle IS NOT NULL
}

// fullBundle completes a bundle the way opm's GetBundle-style answers are built: manifests parsed
// from the blob, the columns, APIs (with plural) keyed by bundle name, then the dependency and
// property rows matching name and (version or NULL) and (path or NULL). replaces, skips and
// deprecation are never set.
func (q *Querier) fullBundle(ctx context.Context, r queryBundleRow, pkgName, channelName string) (*api.Bundle, error) {
	if cached := q.bundles.get(r.name.String); cached != nil {
		out := proto.Clone(cached).(*api.Bundle)
		out.PackageName, out.ChannelName = pkgName, channelName
		return out, nil
	}
	out, err := q.completeBundle(ctx, r)
	if err != nil {
		return nil, err
	}
	q.bundles.put(r.name.String, out)
	out = proto.Clone(out).(*api.Bundle)
	out.PackageName, out.ChannelName = pkgName, channelName
	return out, nil
}

// completeBundle builds the channel-independent part of a bundle's answer.
func (q *Querier) completeBundle(ctx context.Context, r queryBundleRow) (*api.Bundle, error) {
	out := &api.Bundle{}
	if r.hasBlob {
		var blob sql.NullString
		if err := q.queryRow(ctx, `SELECT bundle FROM operatorbundle WHERE name = ?`, r.name.String).Scan(&blob); err != nil {
			return nil, q.wrap(err)
		}
		if blob.String != "" {
			objs, csv, err := querySplitBundleBlob(blob.String)
			if err != nil {
				return nil, err
			}
			out.Object, out.CsvJson = objs, csv
		}
	}
	out.CsvName = r.name.String
	out.BundlePath = r.bundlePath.String
	out.Version = r.version.String
	out.SkipRange = r.skipRange.String
	var err error
	if out.ProvidedApis, out.RequiredApis, err = q.apisOf(ctx, r.name.String); err != nil {
		return nil, err
	}
	if out.Dependencies, err = q.dependenciesOf(ctx, r.name.String, r.version.String, r.bundlePath.String); err != nil {
		return nil, err
	}
	if out.Properties, err = q.propertiesOf(ctx, r.name.String, r.version.String, r.bundlePath.String); err != nil {
		return nil, err
	}
	return out, nil
}

// querySplitBundleBlob splits the concatenated manifests of operatorbundle.bundle into one string per
// object, byte for byte, and picks the first ClusterServiceVersion as csvJson. An object without
// a kind, or a blob without a CSV, fails the call as it does in opm.
func querySplitBundleBlob(blob string) (objects []string, csvJSON string, err error) {
	objects, ok := querySplitObjectsFast(blob)
	if !ok {
		if objects, err = querySplitValues(blob); err != nil {
			return nil, "", err
		}
	}
	for _, o := range objects {
		kind, err := queryObjectKind(o)
		if err != nil {
			return nil, "", err
		}
		if kind == "" {
			return nil, "", fmt.Errorf("Object 'Kind' is missing in '%s'", o)
		}
		if kind == "ClusterServiceVersion" {
			return objects, o, nil
		}
	}
	return nil, "", fmt.Errorf("no csv in bundle")
}

// queryObjectKind reads the top-level "kind" of a JSON object, stopping there: manifests are
// written with sorted keys, so kind comes second and the rest of a large object is not scanned.
// A kind that is not a string counts as missing.
func queryObjectKind(obj string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("bundle object is not a JSON object: %.40q", obj)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return "", err
		}
		if t == "kind" {
			var kind string
			_ = json.Unmarshal(value, &kind)
			return kind, nil
		}
	}
	return "", nil
}

// queryGVK decodes an olm.gvk value the way opm does (encoding/json into a struct, so keys match
// case-insensitively).
type queryGVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// apisOf returns the provided APIs (every olm.gvk property row of the bundle, duplicates kept) and
// the required ones (distinct olm.gvk dependency values), with plural filled from the api table.
// Values that do not decode are skipped.
func (q *Querier) apisOf(ctx context.Context, bundleName string) (provided, required []*api.GroupVersionKind, err error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, nil, err
	}
	provided, err = q.gvkRows(ctx, `SELECT CAST(value AS TEXT) FROM properties
		WHERE rowid IN (SELECT value FROM json_each(?)) AND CAST(operatorbundle_name AS TEXT) = ? AND type = ? ORDER BY rowid`, false,
		rowidList(ix.props.appendRowids(nil, bundleName)), bundleName, queryGVKType)
	if err != nil {
		return nil, nil, err
	}
	required, err = q.gvkRows(ctx, `SELECT CAST(value AS TEXT) FROM dependencies
		WHERE rowid IN (SELECT value FROM json_each(?)) AND CAST(operatorbundle_name AS TEXT) = ? AND type = ? ORDER BY rowid`, true,
		rowidList(ix.deps.appendRowids(nil, bundleName)), bundleName, queryGVKType)
	if err != nil {
		return nil, nil, err
	}
	for _, list := range [][]*api.GroupVersionKind{provided, required} {
		for _, g := range list {
			g.Plural = ix.links.plurals[[3]string{g.Group, g.Version, g.Kind}]
		}
	}
	return provided, required, nil
}

func (q *Querier) gvkRows(ctx context.Context, query string, distinct bool, args ...any) ([]*api.GroupVersionKind, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, q.wrap(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	out := []*api.GroupVersionKind{}
	for rows.Next() {
		var value sql.NullString
		if err := rows.Scan(&value); err != nil {
			return nil, q.wrap(err)
		}
		if !value.Valid {
			continue
		}
		if distinct {
			if seen[value.String] {
				continue
			}
			seen[value.String] = true
		}
		var g queryGVK
		if json.Unmarshal([]byte(value.String), &g) != nil {
			continue
		}
		out = append(out, &api.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind})
	}
	return out, q.wrap(rows.Err())
}

// typedRows reads distinct (type, value) rows of properties or dependencies for one bundle, in
// row order. As in opm, a NULL type or value ends the list early and empties it.
func (q *Querier) typedRows(ctx context.Context, table, name, version, path string) ([][2]string, error) {
	ix, err := q.rowIndex(ctx)
	if err != nil {
		return nil, err
	}
	keys := ix.props
	if table == "dependencies" {
		keys = ix.deps
	}
	rows, err := q.query(ctx, `SELECT type, CAST(value AS TEXT) FROM `+table+`
		WHERE rowid IN (SELECT value FROM json_each(?)) AND CAST(operatorbundle_name AS TEXT) = ?
		AND (operatorbundle_version = ? OR operatorbundle_version IS NULL)
		AND (operatorbundle_path = ? OR operatorbundle_path IS NULL)
		ORDER BY rowid`, rowidList(keys.appendRowids(nil, name)), name, version, path)
	if err != nil {
		return nil, q.wrap(err)
	}
	defer rows.Close()
	seen := map[[2]string]bool{}
	var out [][2]string
	for rows.Next() {
		var typ, value sql.NullString
		if err := rows.Scan(&typ, &value); err != nil {
			return nil, q.wrap(err)
		}
		if !typ.Valid || !value.Valid {
			return nil, nil
		}
		k := [2]string{typ.String, value.String}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, q.wrap(rows.Err())
}

func (q *Querier) dependenciesOf(ctx context.Context, name, version, path string) ([]*api.Dependency, error) {
	rows, err := q.typedRows(ctx, "dependencies", name, version, path)
	if err != nil {
		return nil, err
	}
	out := make([]*api.Dependency, 0, len(rows))
	for _, r := range rows {
		out = append(out, &api.Dependency{Type: r[0], Value: r[1]})
	}
	return out, nil
}

func (q *Querier) propertiesOf(ctx context.Context, name, version, path string) ([]*api.Property, error) {
	rows, err := q.typedRows(ctx, "properties", name, version, path)
	if err != nil {
		return nil, err
	}
	out := make([]*api.Property, 0, len(rows))
	for _, r := range rows {
		out = append(out, &api.Property{Type: r[0], Value: r[1]})
	}
	return out, nil
}
