// Command readme checks that every Go code block of a Markdown file is the
// region of an Example function, so that the code a reader copies is code
// the compiler has seen. `make check` runs it on README.md.
//
// A Go block names its source on the line above its fence:
//
//	<!-- from example_readme_test.go#library -->
//	```go
//	...
//	```
//
// The file (relative to the Markdown file's directory) marks the region
// with a line "// readme:begin library" and a line "// readme:end
// library", inside a function whose name starts with Example. The block
// holds the lines between them, less their common indentation.
//
// Usage:
//
//	go run ./internal/readme [-w] [file.md ...]
//
// With no file it checks README.md. It prints each block that is not from
// an Example or differs from its region, and exits 1 if there is one; -w
// writes the regions into the blocks instead.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	write := flag.Bool("w", false, "write the regions into the Markdown files instead of checking")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: readme [-w] [file.md ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		files = []string{"README.md"}
	}
	failed := false
	for _, f := range files {
		problems, err := check(f, *write)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
		}
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// fromLine names a block's source: <!-- from FILE#REGION -->.
var fromLine = regexp.MustCompile(`^<!--\s*from\s+(\S+)#(\S+)\s*-->$`)

// A problem is a block that is not what its source says, at a line of the
// Markdown file.
type problem struct {
	file string
	line int // of the block's opening fence
	msg  string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.msg) }

// check checks the Go blocks of the Markdown file md against their regions;
// with write it replaces each block that differs by its region and
// rewrites md. A problem is a block that cannot be checked or, without
// write, differs; an error is a file that cannot be read or written.
func check(md string, write bool) ([]problem, error) {
	src, err := os.ReadFile(md)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(src), "\n")
	var out []string
	var problems []problem
	changed := false
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i + 1
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			problems = append(problems, problem{md, i + 1, "a go block without its closing fence"})
			out = append(out, lines[start:]...)
			break
		}
		block := strings.Join(lines[start:end], "")
		want, msg := source(md, lines, i)
		switch {
		case msg != "":
			problems = append(problems, problem{md, i + 1, msg})
			out = append(out, block)
		case want == block:
			out = append(out, block)
		case write:
			out = append(out, want)
			changed = true
		default:
			problems = append(problems, problem{md, i + 1, "differs from its Example's region (go run ./internal/readme -w rewrites it):\n" + diff(block, want)})
			out = append(out, block)
		}
		i = end - 1
	}
	if changed {
		if err := os.WriteFile(md, []byte(strings.Join(out, "")), 0o644); err != nil {
			return problems, err
		}
	}
	return problems, nil
}

// source returns the region the block whose fence is lines[fence] names
// on the nearest non-blank line above, or why it has none.
func source(md string, lines []string, fence int) (region, problem string) {
	above := fence - 1
	for above >= 0 && strings.TrimSpace(lines[above]) == "" {
		above--
	}
	var m []string
	if above >= 0 {
		m = fromLine.FindStringSubmatch(strings.TrimSpace(lines[above]))
	}
	if m == nil {
		return "", "a go block that names no Example: put <!-- from FILE#REGION --> above it"
	}
	path := filepath.Join(filepath.Dir(md), filepath.FromSlash(m[1]))
	text, err := extract(path, m[2])
	if err != nil {
		return "", err.Error()
	}
	return text, ""
}

// extract returns the lines of the region name of the Go file path, less
// their common indentation. The region must lie in one Example function.
func extract(path, name string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	begin, end := "// readme:begin "+name, "// readme:end "+name
	var from, to token.Pos
	for _, g := range f.Comments {
		for _, c := range g.List {
			switch strings.TrimSpace(c.Text) {
			case begin:
				if from.IsValid() {
					return "", fmt.Errorf("%s: region %q begins twice", path, name)
				}
				from = c.Pos()
			case end:
				to = c.Pos()
			}
		}
	}
	if !from.IsValid() || !to.IsValid() || to < from {
		return "", fmt.Errorf("%s: no region %q (a %q line, then a %q line)", path, name, begin, end)
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Pos() < from && to < d.End() {
			fn = d
		}
	}
	if fn == nil || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") {
		return "", fmt.Errorf("%s: region %q is not inside an Example function", path, name)
	}
	// The lines strictly between the marker lines.
	all := strings.SplitAfter(string(src), "\n")
	first, last := fset.Position(from).Line, fset.Position(to).Line
	return dedent(all[first : last-1]), nil
}

// dedent joins lines less the leading tabs all non-blank ones share.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if common < 0 || n < common {
			common = n
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(l[max(common, 0):])
	}
	return b.String()
}

// diff shows the first line where got and want part, with its neighbours.
func diff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	var b bytes.Buffer
	for _, side := range []struct {
		label string
		lines []string
	}{{"README", g}, {"Example", w}} {
		fmt.Fprintf(&b, "\t%s, from its line %d:\n", side.label, i+1)
		for j := i; j < len(side.lines) && j < i+3; j++ {
			fmt.Fprintf(&b, "\t\t%s\n", side.lines[j])
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
