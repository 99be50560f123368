package fbc

import (
	"io/fs"
	"os"
	"slices"
)

// WalkPackages calls fn once per package of the catalog at root, in package-name order, with a
// Catalog holding exactly that package's blobs (in load order, as Load would give them): its
// olm.package, channels, bundles, deprecations and custom-schema blobs naming it. Blobs that belong to
// no package (custom schemas without a "package" field) come first, as package "".
//
// Memory: the catalog is read twice. The first pass splits and checks every blob as Walk does and
// notes which files hold which packages, and where each blob of a JSON file lies (40 bytes a blob;
// files of up to 16 MiB are read whole, a few at a time, see load_index.go). If it found any
// problem (syntax, missing schema, name or package, unreadable file...), WalkPackages returns the
// *LoadErrors without calling fn. The second pass decodes the files of one package at a time,
// taking each blob from where the first found it (load_spans.go); a package with a blob that
// does not decode (a field of the wrong type) is not handed over, the others are, and the decode
// problems are returned at the end. So every package fn receives is complete. When
// blobs of several packages share files, those packages are loaded together (a single file holding
// the whole catalog is therefore loaded whole). In opm's <package>/catalog.json layout, at most one
// package is held at a time.
//
// An error from fn stops the walk and is returned. Standard input ("-") cannot be read twice: it is
// loaded whole, then handed over package by package.
func (l Loader) WalkPackages(root string, fn func(pkg string, c *Catalog) error) error {
	if root == "-" {
		c, err := l.LoadReader(os.Stdin, StdinName)
		if err != nil {
			return err
		}
		for _, part := range SplitByPackage(c) {
			if err := fn(part.Package, part.Catalog); err != nil {
				return err
			}
		}
		return nil
	}
	tree, lerr := openTree(root)
	if lerr != nil {
		errs := l.newErrorList()
		errs.add(lerr)
		return errs.err()
	}
	defer tree.Close()
	return l.walkTreePackages(tree, fn)
}

// WalkPackagesFS is WalkPackages over the catalog directory tree fsys (see WalkFS).
func (l Loader) WalkPackagesFS(fsys fs.FS, fn func(pkg string, c *Catalog) error) error {
	return l.walkTreePackages(fsTree(fsys), fn)
}

func (l Loader) walkTreePackages(tree *catalogTree, fn func(pkg string, c *Catalog) error) error {
	errs := l.newErrorList()
	idx := newPackageIndex()
	if err := l.indexTree(tree, idx, errs); err != nil {
		return err
	}
	if err := l.stopped(); err != nil {
		return err
	}
	if !errs.empty() {
		return errs.err()
	}
	l.checked = true // the second reading: every blob read without a syntax error
	return l.emitPackages(tree, idx, fn)
}

// WalkPackages is Loader{}.WalkPackages.
func WalkPackages(root string, fn func(pkg string, c *Catalog) error) error {
	return Loader{}.WalkPackages(root, fn)
}

// WalkPackagesFS is Loader{}.WalkPackagesFS.
func WalkPackagesFS(fsys fs.FS, fn func(pkg string, c *Catalog) error) error {
	return Loader{}.WalkPackagesFS(fsys, fn)
}

// emitPackages is the second pass: packages in name order, each group of files loaded once.
func (l Loader) emitPackages(tree *catalogTree, idx *packageIndex, fn func(string, *Catalog) error) error {
	loaded := map[string]*Catalog{} // packages read but not handed over yet
	broken := map[string]bool{}     // packages with a blob that did not decode
	errs := l.newErrorList()
	for _, pkg := range idx.sortedPackages() {
		if pkg != "" && l.Packages != nil && !l.Packages(pkg) {
			continue
		}
		c, ok := loaded[pkg]
		if !ok {
			group := map[string]*Catalog{}
			add := func(b Blob) error {
				p := b.PackageName()
				if group[p] == nil {
					group[p] = &Catalog{}
				}
				if b.Schema == SchemaBundle && l.DeferBundle != nil && l.DeferBundle(b) {
					group[p].Bundles = append(group[p].Bundles, Bundle{Schema: b.Schema, Name: b.Name, Package: b.Package, Loc: b.Loc, deferred: b.Data})
					return nil
				}
				if err := group[p].Add(b); err != nil {
					broken[p] = true
					return err
				}
				return nil
			}
			for _, name := range idx.filesOfGroup(pkg) {
				if err := l.stopped(); err != nil {
					return err
				}
				if layout := idx.layouts[name]; layout != nil {
					done, err := l.readPlaced(tree, name, layout, func(b Blob) error { return recordLoadError(add(b), b, errs) })
					if err != nil {
						return err
					}
					if done {
						continue
					}
				}
				if err := l.readTreeFile(tree, name, add, errs); err != nil {
					return err
				}
			}
			for p, pc := range group {
				loaded[p] = pc
			}
			c = loaded[pkg]
			if c == nil { // the file changed since the first pass
				c = &Catalog{}
			}
		}
		delete(loaded, pkg)
		if broken[pkg] {
			continue
		}
		if err := fn(pkg, c); err != nil {
			return err
		}
	}
	if err := l.stopped(); err != nil {
		return err
	}
	return errs.err()
}

// packageIndex records which files hold blobs of which package, and groups files that must be read
// together because they share a package.
type packageIndex struct {
	files       []string               // in walk order
	fileIndex   map[string]int         // file -> position in files
	pkgFiles    map[string][]int       // package -> files holding it
	parent      []int                  // union-find over files
	packagesSet map[string]struct{}    // every package seen
	groups      map[int][]string       // union-find root -> its files in walk order, built once noting is over
	layouts     map[string]*fileLayout // file -> where its blobs lie (JSON files read without a problem)
}

func newPackageIndex() *packageIndex {
	return &packageIndex{fileIndex: map[string]int{}, pkgFiles: map[string][]int{}, packagesSet: map[string]struct{}{},
		layouts: map[string]*fileLayout{}}
}

func (x *packageIndex) note(file, pkg string) {
	fi, ok := x.fileIndex[file]
	if !ok {
		fi = len(x.files)
		x.files = append(x.files, file)
		x.fileIndex[file] = fi
		x.parent = append(x.parent, fi)
	}
	list := x.pkgFiles[pkg]
	if len(list) > 0 && list[len(list)-1] == fi {
		return
	}
	if len(list) > 0 {
		x.union(list[0], fi)
	}
	x.pkgFiles[pkg] = append(list, fi)
	x.packagesSet[pkg] = struct{}{}
}

func (x *packageIndex) find(i int) int {
	for x.parent[i] != i {
		x.parent[i] = x.parent[x.parent[i]]
		i = x.parent[i]
	}
	return i
}

func (x *packageIndex) union(a, b int) {
	ra, rb := x.find(a), x.find(b)
	if ra != rb {
		x.parent[rb] = ra
	}
}

func (x *packageIndex) sortedPackages() []string {
	out := make([]string, 0, len(x.packagesSet))
	for p := range x.packagesSet {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// filesOfGroup lists, in walk order, every file connected to pkg through shared packages.
func (x *packageIndex) filesOfGroup(pkg string) []string {
	files := x.pkgFiles[pkg]
	if len(files) == 0 {
		return nil
	}
	if x.groups == nil {
		x.groups = map[int][]string{}
		for i, name := range x.files {
			r := x.find(i)
			x.groups[r] = append(x.groups[r], name)
		}
	}
	return x.groups[x.find(files[0])]
}
