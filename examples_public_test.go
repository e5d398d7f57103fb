package retrysim_test

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// Every runnable example is one a program outside the module can copy: it
// imports no internal package (issue 37: strategy's examples imported
// internal/rng and internal/sim), and each Example function pins its
// output, so that go test runs it (ExampleNewReport had no // Output:).
func TestExamplesArePublic(t *testing.T) {
	isExample := func(path string) bool { return strings.HasSuffix(path, "example_test.go") }
	eachGoFile(t, isExample, func(_ *token.FileSet, path string, f *ast.File) {
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
	})
}
