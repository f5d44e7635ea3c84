package mcpactor

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpactor/mcpactor/internal/harness"
)

// TestAliasDocsNameEveryField: go doc of the root shows an alias's own
// doc comment, not the fields of the struct it names, so that comment
// names each exported field of the struct, read from the declaring
// package's source. The error types are left out: they are matched by
// errors.Is and errors.As, and their fields are documented where they are
// declared.
func TestAliasDocsNameEveryField(t *testing.T) {
	const module = "github.com/mcpactor/mcpactor/"
	imports, aliases := map[string]string{}, 0
	for _, f := range harness.SourceFiles(t, ".") {
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if rel, ok := strings.CutPrefix(path, module); ok {
				imports[path[strings.LastIndex(path, "/")+1:]] = rel
			}
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				sel, ok := ts.Type.(*ast.SelectorExpr)
				if !ts.Assign.IsValid() || !ok || strings.HasSuffix(ts.Name.Name, "Error") {
					continue
				}
				doc := ts.Doc
				if doc == nil {
					doc = gd.Doc
				}
				dir, ok := imports[sel.X.(*ast.Ident).Name]
				if !ok {
					t.Fatalf("%s: the package of %s.%s is not this module's", ts.Name.Name, sel.X, sel.Sel)
				}
				aliases++
				for _, field := range structFields(t, dir, sel.Sel.Name) {
					if !regexp.MustCompile(`\b` + field + `\b`).MatchString(doc.Text()) {
						t.Errorf("the doc comment of %s does not name its field %s", ts.Name.Name, field)
					}
				}
			}
		}
	}
	if aliases == 0 {
		t.Fatal("no alias found")
	}
}

// structFields are the exported fields of the struct type name declared
// in dir; none if it is not a struct.
func structFields(t *testing.T, dir, name string) []string {
	t.Helper()
	var fields []string
	for _, f := range harness.SourceFiles(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != name {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, id := range fl.Names {
						if id.IsExported() {
							fields = append(fields, id.Name)
						}
					}
				}
			}
			return false
		})
	}
	return fields
}
