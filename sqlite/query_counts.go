package sqlite

import (
	"context"
	"fmt"
)

// Counts are the packages and bundles the index serves (rows of package and operatorbundle).
func (q *Querier) Counts(ctx context.Context) (packages, bundles int, err error) {
	err = q.db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM package), (SELECT COUNT(*) FROM operatorbundle)`).Scan(&packages, &bundles)
	if err != nil {
		return 0, 0, fmt.Errorf("count the packages and bundles of %s: %w", q.input, err)
	}
	return packages, bundles, nil
}
