package mcpactor_test

import (
	"go/ast"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/internal/harness"
)

// maxErrorIdentifiers bounds the error vocabulary a user must know
// (README, "Errors"): the kind sentinels and the few carrier types.
const maxErrorIdentifiers = 20

// TestErrorVocabularyIsSmall counts the root package's exported error
// identifiers: variables and constants named Err... or declared as a
// sentinel (errors.New, errkind.Err...), and types named Error or
// ...Error. A new one fails this test above the bound.
func TestErrorVocabularyIsSmall(t *testing.T) {
	t.Parallel()
	var names []string
	for _, f := range harness.SourceFiles(t, ".") {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for i, id := range s.Names {
						if id.IsExported() && (g.Tok == token.VAR || g.Tok == token.CONST) &&
							(strings.HasPrefix(id.Name, "Err") || i < len(s.Values) && isSentinel(s.Values[i])) {
							names = append(names, id.Name)
						}
					}
				case *ast.TypeSpec:
					if s.Name.IsExported() && strings.HasSuffix(s.Name.Name, "Error") {
						names = append(names, s.Name.Name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	if len(names) > maxErrorIdentifiers {
		t.Errorf("the root package exports %d error identifiers, more than %d: %v", len(names), maxErrorIdentifiers, names)
	}
	for _, want := range []string{"ErrTransportClosed", "ErrTimeout", "ErrHTTP", "ErrNotFound", "Error", "RPCError", "ConfigError", "TaskError"} {
		if !slices.Contains(names, want) {
			t.Errorf("the count found no %s: it does not see the declarations (%v)", want, names)
		}
	}
	t.Logf("%d error identifiers: %v", len(names), names)
}

// isSentinel reports a value made by errors.New or taken from a package's
// Err... variable.
func isSentinel(e ast.Expr) bool {
	switch v := e.(type) {
	case *ast.CallExpr:
		if sel, ok := v.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "errors" && sel.Sel.Name == "New" {
				return true
			}
		}
	case *ast.SelectorExpr:
		return strings.HasPrefix(v.Sel.Name, "Err")
	}
	return false
}

// TestErrorCarrierMethods: *Error shows a user the methods of an error and
// nothing else; its cases are told by Kind and its fields (its doc says
// which), not by methods of its own.
func TestErrorCarrierMethods(t *testing.T) {
	t.Parallel()
	var methods []string
	typ := reflect.TypeFor[*mcpactor.Error]()
	for i := range typ.NumMethod() {
		methods = append(methods, typ.Method(i).Name)
	}
	if want := []string{"Error", "Is", "Unwrap"}; !slices.Equal(methods, want) {
		t.Errorf("*mcpactor.Error has the methods %v, want %v", methods, want)
	}
}
