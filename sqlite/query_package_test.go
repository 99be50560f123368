package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// GetPackage reads every package in one query instead of opm's query per call. For every
// package of every corpus index.db its answer must be what opm's own query gives, channels in
// the same order, and an unknown name must still be "not found".
func TestGetPackageAnswersAsOpmsQuery(t *testing.T) {
	dbs, _ := filepath.Glob(filepath.Join(queryConformanceDir, "*", "input.db"))
	if len(dbs) == 0 {
		t.Skipf("conformance corpus not found at %s (it lives in ../shared beside the repository)", queryConformanceDir)
	}
	ctx := context.Background()
	compared, channels := 0, 0
	for _, db := range dbs {
		q, err := NewQuerier(db)
		if err != nil {
			t.Fatalf("%s: %v", db, err)
		}
		names, err := q.ListPackages(ctx)
		if err != nil {
			t.Fatalf("%s: %v", db, err)
		}
		for _, name := range names {
			want, err := opmGetPackage(ctx, q.db, name)
			if err != nil {
				t.Fatalf("%s: %v", db, err)
			}
			got, err := q.GetPackage(ctx, name)
			if want == nil {
				if err == nil || err.Error() != "package "+name+" not found" {
					t.Errorf("%s: GetPackage(%s) of a package without channels: %v, %v", db, name, got, err)
				}
				continue
			}
			if err != nil || !proto.Equal(got, want) {
				t.Errorf("%s: GetPackage(%s) =\n  %v (%v)\nopm's query gives\n  %v", db, name, got, err, want)
			}
			compared++
			channels += len(want.Channels)
		}
		if _, err := q.GetPackage(ctx, "no-such-package"); err == nil || err.Error() != "package no-such-package not found" {
			t.Errorf("%s: GetPackage of an unknown package: %v", db, err)
		}
		q.Close()
	}
	if compared < 20 || channels < compared+10 {
		t.Fatalf("only %d packages with %d channels compared", compared, channels)
	}
}

// opmGetPackage is opm's GetPackage query, one call per package; nil when it gives no rows.
func opmGetPackage(ctx context.Context, db *sql.DB, name string) (*api.Package, error) {
	rows, err := db.QueryContext(ctx, `
		SELECT DISTINCT p.name, p.default_channel, c.name, c.head_operatorbundle_name
		FROM package AS p JOIN channel AS c ON c.package_name = p.name
		WHERE p.name = ?`, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pkg *api.Package
	for rows.Next() {
		var pkgName, defaultChannel, channel, head sql.NullString
		if err := rows.Scan(&pkgName, &defaultChannel, &channel, &head); err != nil {
			return nil, err
		}
		if pkg == nil {
			pkg = &api.Package{Name: pkgName.String, DefaultChannelName: defaultChannel.String}
		}
		pkg.Channels = append(pkg.Channels, &api.Channel{Name: channel.String, CsvName: head.String})
	}
	return pkg, rows.Err()
}
