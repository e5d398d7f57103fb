package retrysim_test

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/retrysim/retrysim"
	"github.com/retrysim/retrysim/internal/stats"
)

// largeRows are the row types that hold a strategy's counters, by the name
// each package writes them: the root's Row and stats' Row, Counters and
// CaseRow ("Row" in any other package is its own, small type).
var largeRows = map[string][]string{
	".":              {"Row"},
	"internal/stats": {"Row", "Counters", "CaseRow"},
	"*":              {"retrysim.Row", "stats.Row", "stats.Counters", "stats.CaseRow"},
}

// TestLargeRowsByPointer fails on any function, method, func-typed field or
// func literal of the module's non-test code that takes a row's counters by
// value (a parameter or receiver of a largeRows type, not a pointer): a
// Counters holds two completion histograms, so every such call copies tens
// of kilobytes (a table's cell copied its row's counters).
func TestLargeRowsByPointer(t *testing.T) {
	for _, size := range []uintptr{unsafe.Sizeof(retrysim.Row{}), unsafe.Sizeof(stats.Row{}), unsafe.Sizeof(stats.Counters{}), unsafe.Sizeof(stats.CaseRow{})} {
		if size < 64<<10 {
			t.Fatalf("a row type is %d bytes; this test is about rows of tens of kilobytes: update largeRows", size)
		}
	}
	eachGoFile(t, isSource, func(fset *token.FileSet, path string, f *ast.File) {
		large := map[string]bool{}
		for _, n := range append(largeRows[filepath.Dir(path)], largeRows["*"]...) {
			large[n] = true
		}
		check := func(what string, fl *ast.FieldList) {
			if fl == nil {
				return
			}
			for _, fd := range fl.List {
				if name := typeName(fd.Type); large[name] {
					t.Errorf("%s: %s of type %s by value; take a *%s", fset.Position(fd.Pos()), what, name, name)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				check("receiver", n.Recv)
			case *ast.FuncType:
				check("parameter", n.Params)
			}
			return true
		})
	})
}

// typeName is a type expression's name as written (Row, stats.Row), or ""
// for a pointer or any other composite type.
func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		if pkg, ok := x.X.(*ast.Ident); ok {
			return pkg.Name + "." + x.Sel.Name
		}
	}
	return ""
}
