package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// statements are the prepared inserts of a Writer, bound to its transaction.
type statements struct {
	bundle, relatedImage, property, dependency *sql.Stmt
	api, apiProvider, apiRequirer              *sql.Stmt
	channel, pkg, entry                        *sql.Stmt
	all                                        []*sql.Stmt
}

func prepareStatements(ctx context.Context, tx *sql.Tx) (*statements, error) {
	s := &statements{}
	for _, p := range []struct {
		into  **sql.Stmt
		query string
	}{
		{&s.bundle, "INSERT INTO operatorbundle(name, csv, bundle, bundlepath, version, skiprange, replaces, skips, substitutesfor) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"},
		{&s.relatedImage, "INSERT INTO related_image(image, operatorbundle_name) VALUES(?, ?)"},
		{&s.property, "INSERT INTO properties(type, value, operatorbundle_name, operatorbundle_version, operatorbundle_path) VALUES(?, ?, ?, ?, ?)"},
		{&s.dependency, "INSERT INTO dependencies(type, value, operatorbundle_name, operatorbundle_version, operatorbundle_path) VALUES(?, ?, ?, ?, ?)"},
		{&s.api, "INSERT OR IGNORE INTO api(group_name, version, kind, plural) VALUES(?, ?, ?, ?)"},
		{&s.apiProvider, "INSERT INTO api_provider(group_name, version, kind, operatorbundle_name, operatorbundle_version, operatorbundle_path) VALUES(?, ?, ?, ?, ?, ?)"},
		{&s.apiRequirer, "INSERT INTO api_requirer(group_name, version, kind, operatorbundle_name, operatorbundle_version, operatorbundle_path) VALUES(?, ?, ?, ?, ?, ?)"},
		{&s.channel, "INSERT INTO channel(name, package_name, head_operatorbundle_name) VALUES(?, ?, ?)"},
		{&s.pkg, "INSERT INTO package(name, default_channel) VALUES(?, ?)"},
		{&s.entry, "INSERT INTO channel_entry(entry_id, channel_name, package_name, operatorbundle_name, replaces, depth) VALUES(?, ?, ?, ?, ?, ?)"},
	} {
		stmt, err := tx.PrepareContext(ctx, p.query)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("prepare %q: %w", p.query, err)
		}
		*p.into = stmt
		s.all = append(s.all, stmt)
	}
	return s, nil
}

func (s *statements) close() {
	for _, stmt := range s.all {
		_ = stmt.Close()
	}
	s.all = nil
}
