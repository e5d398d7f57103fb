package retrysim_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every runnable example is one a program outside the module can copy: it
// imports no internal package (issue 37: strategy's examples imported
// internal/rng and internal/sim), and each Example function pins its
// output, so that go test runs it (ExampleNewReport had no // Output:).
func TestExamplesArePublic(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, "example_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); strings.Contains(p, "/internal/") {
				t.Errorf("%s imports %s, which a program outside the module cannot", path, p)
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			pinned := false
			for _, c := range f.Comments {
				if c.Pos() > fn.Body.Pos() && c.End() < fn.Body.End() && strings.HasPrefix(c.Text(), "Output:") {
					pinned = true
				}
			}
			if !pinned {
				t.Errorf("%s: %s has no // Output:, so go test never runs it", path, fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
