package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/internal/source"
	"github.com/olmcat/olmcat/internal/textsafe"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// duplicatePackages finds the packages two or more of render's catalogs hold. opm render
// concatenates its inputs, so such a package is written twice and the stream is no valid catalog
// (a package, its channels and bundles defined twice); render does the same, and says so once.
type duplicatePackages map[string][]string // package -> the catalogs holding it

func (d duplicatePackages) add(catalog string, c *fbc.Catalog) {
	seen := map[string]bool{}
	for _, p := range c.Packages {
		if !seen[p.Name] {
			seen[p.Name] = true
			d[p.Name] = append(d[p.Name], catalog)
		}
	}
}

func (d duplicatePackages) warn(w io.Writer) {
	var names []string
	for name, in := range d {
		if len(in) > 1 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	shown := names
	if len(shown) > 5 {
		shown = shown[:5]
	}
	var parts []string
	for _, n := range shown {
		parts = append(parts, fmt.Sprintf("%s (in %s)", n, strings.Join(d[n], ", ")))
	}
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	fmt.Fprintf(w, "olmcat: warning: %d %s in more than one catalog, written once per catalog as opm render writes them: %s%s; the stream is not a valid catalog (a package defined twice): render one catalog, or compare them with 'olmcat diff'\n",
		len(names), pluralWord(len(names), "package is", "packages are"), textsafe.Terminal(strings.Join(parts, "; ")), more)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// migrateFBC applies --migrate-level to the bundles of a File-Based Catalog input, as opm render
// migrates every input (index.db inputs, bundle images and templates are migrated as they are
// read). A ClusterServiceVersion that does not decode stops the render, as it stops opm's.
func migrateFBC(src *source.Source, c *fbc.Catalog, level tofbc.MigrateLevel) error {
	if level != tofbc.LevelCSVMetadata || src.Format() != source.FormatFBC {
		return nil
	}
	for i := range c.Bundles {
		b := &c.Bundles[i]
		if err := csvmeta.Migrate(b, csvmeta.BundleCSV(b)); err != nil {
			return usageError{fmt.Errorf("%s: package %s, bundle %s: --migrate-level %s: its ClusterServiceVersion does not decode: %v", src, textsafe.Terminal(b.Package), textsafe.Terminal(b.Name), level, err)}
		}
	}
	return nil
}
