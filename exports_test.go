package retrysim_test

import (
	"go/ast"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// exportCeiling is the most exported identifiers the public packages may
// hold together, as TestExportCount counts them. Issue 37's goal is 500:
// this is a ratchet at what the last change reached, and every later
// change lowers it, never raises it.
const exportCeiling = 500

// publicDirs walks the module and lists, sorted, the directory of every
// package a Go program may import: every directory holding a non-test Go
// file, but internal, cmd and testdata and what is under them.
func publicDirs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path == ".":
			case name == "internal", name == "cmd", name == "testdata", strings.HasPrefix(name, "."):
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			seen[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(seen))
	for dir := range seen {
		dirs = append(dirs, filepath.ToSlash(dir))
	}
	sort.Strings(dirs)
	return dirs
}

// TestPublicPackagesListed fails when publicPackages, the list the go doc
// tests read, is not every public package of the module.
func TestPublicPackagesListed(t *testing.T) {
	want := publicDirs(t)
	got := slices.Sorted(slices.Values(publicPackages))
	if !slices.Equal(got, want) {
		t.Errorf("publicPackages = %q; want %q", got, want)
	}
}

// exports holds what a public package exports: its exported top-level
// names (functions, types, variables and constants) and the number of
// exported identifiers in all, counting also the exported methods of its
// exported types, the exported fields (embedded ones by their type's name)
// of its exported structs and the methods of its exported interfaces.
type exports struct {
	topLevel []string
	count    int
}

// exportsOf reads the non-test files of the package in dir.
func exportsOf(t *testing.T, dir string) exports {
	t.Helper()
	_, files := parseSources(t, dir, 0)
	var e exports
	for _, file := range files {
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					e.topLevel = append(e.topLevel, d.Name.Name)
					e.count++
				} else if baseTypeName(d.Recv.List[0].Type).IsExported() {
					e.count++
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						e.topLevel = append(e.topLevel, s.Name.Name)
						e.count++
						switch ty := s.Type.(type) {
						case *ast.StructType:
							for _, f := range ty.Fields.List {
								if len(f.Names) == 0 && baseTypeName(f.Type).IsExported() {
									e.count++
								}
								for _, n := range f.Names {
									if n.IsExported() {
										e.count++
									}
								}
							}
						case *ast.InterfaceType:
							for _, m := range ty.Methods.List {
								for _, n := range m.Names {
									if n.IsExported() {
										e.count++
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								e.topLevel = append(e.topLevel, n.Name)
								e.count++
							}
						}
					}
				}
			}
		}
	}
	return e
}

// baseTypeName is the name of the type a receiver or an embedded field names:
// T of T, *T, pkg.T, T[P] and *T[P, Q].
func baseTypeName(x ast.Expr) *ast.Ident {
	for {
		switch y := x.(type) {
		case *ast.StarExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		case *ast.IndexListExpr:
			x = y.X
		case *ast.SelectorExpr:
			return y.Sel
		case *ast.Ident:
			return y
		default:
			return ast.NewIdent("_")
		}
	}
}

// TestExportCount logs the exported identifiers of each public package and
// of all together, and fails when all together are more than exportCeiling
// (or fewer: then the ceiling is to be lowered to the new count).
func TestExportCount(t *testing.T) {
	total := 0
	for _, dir := range publicDirs(t) {
		n := exportsOf(t, dir).count
		t.Logf("%5d %s", n, dir)
		total += n
	}
	t.Logf("%5d in all (issue 37's goal: 500)", total)
	switch {
	case total > exportCeiling:
		t.Errorf("the public packages export %d identifiers; want at most exportCeiling = %d (issue 37: at most 500)", total, exportCeiling)
	case total < exportCeiling:
		t.Errorf("the public packages export %d identifiers, fewer than exportCeiling = %d: lower exportCeiling to %d", total, exportCeiling, total)
	}
}

// sharedNames are the exported top-level names that two or more public
// packages declare, each with why: the same concept in each, or marked
// "TODO issue 37: rename" where the packages give the name different
// meanings (issue 37: one meaning per name). The list only shrinks.
var sharedNames = map[string]string{
	"Config":  "each model's configuration of one run: delivery's queue, fleet's run",
	"Options": "the optional arguments of the package's main call: fleet.Run's, report's writers'",
	"Result":  "what the package's main call returns: fleet configurations' runs (fleet), a search's answer (tune)",
	"Run":     "the package's main call: run an experiment (the root), run fleet configurations (fleet), search an experiment's settings (tune)",
}

// TestSharedNamesOneMeaning fails naming each exported top-level name that
// two or more public packages declare and sharedNames does not list, and
// each name sharedNames lists that fewer than two declare; it logs the
// names still to be renamed.
func TestSharedNamesOneMeaning(t *testing.T) {
	where := map[string][]string{}
	for _, dir := range publicDirs(t) {
		for _, name := range exportsOf(t, dir).topLevel {
			if !slices.Contains(where[name], dir) {
				where[name] = append(where[name], dir)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(where)) {
		dirs := where[name]
		why, ok := sharedNames[name]
		switch {
		case len(dirs) > 1 && !ok:
			t.Errorf("%s is declared in %q: rename it, or list it in sharedNames with the concept each shares", name, dirs)
		case len(dirs) > 1 && strings.HasPrefix(why, "TODO"):
			t.Logf("%s in %q: %s", name, dirs, why)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sharedNames)) {
		if len(where[name]) < 2 {
			t.Errorf("sharedNames lists %s, declared in %q: take it off the list", name, where[name])
		}
	}
}
