package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exampleFile = `package demo_test

import "fmt"

func Example_greet() {
	name := "MCP"
	// readme:begin greet
	msg := "hello, " + name
	if msg != "" {
		fmt.Println(msg)
	}
	// readme:end greet
}

func helper() {
	// readme:begin outside
	fmt.Println("not an example")
	// readme:end outside
}
`

const inSync = "<!-- from example_test.go#greet -->\n```go\nmsg := \"hello, \" + name\nif msg != \"\" {\n\tfmt.Println(msg)\n}\n```\n"

// dir writes the example file and a README.md holding readme.
func dir(t *testing.T, readme string) string {
	t.Helper()
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "example_test.go"), []byte(exampleFile), 0o644); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(d, "README.md")
	if err := os.WriteFile(md, []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	return md
}

func TestBlockInSyncPasses(t *testing.T) {
	md := dir(t, "# Demo\n\n"+inSync+"\n```sh\nnot go\n```\n")
	problems, err := check(md, false)
	if err != nil || len(problems) != 0 {
		t.Fatalf("check = %v, %v; want no problem", problems, err)
	}
}

func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, readme string
		line         int
		want         string
	}{
		{"drifted", strings.Replace(inSync, "hello, ", "hi, ", 1), 2, "differs from its Example's region"},
		{"no source", "text\n\n```go\nfmt.Println()\n```\n", 3, "names no Example"},
		{"unknown region", "<!-- from example_test.go#nope -->\n```go\nx\n```\n", 2, `no region "nope"`},
		{"missing file", "<!-- from gone_test.go#greet -->\n```go\nx\n```\n", 2, "gone_test.go"},
		{"not in an Example", "<!-- from example_test.go#outside -->\n```go\nfmt.Println(\"not an example\")\n```\n", 2, "not inside an Example"},
		{"unclosed", "<!-- from example_test.go#greet -->\n```go\nx\n", 2, "without its closing fence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := dir(t, tc.readme)
			problems, err := check(md, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 1 || problems[0].line != tc.line || !strings.Contains(problems[0].msg, tc.want) {
				t.Fatalf("problems = %v; want one at line %d saying %q", problems, tc.line, tc.want)
			}
			if !strings.HasPrefix(problems[0].String(), md+":") {
				t.Errorf("%q does not name the file", problems[0])
			}
		})
	}
}

func TestWriteRewritesADriftedBlock(t *testing.T) {
	md := dir(t, "# Demo\n\n"+strings.Replace(inSync, "hello, ", "hi, ", 1)+"after\n")
	if problems, err := check(md, true); err != nil || len(problems) != 0 {
		t.Fatalf("check -w = %v, %v", problems, err)
	}
	got, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Demo\n\n" + inSync + "after\n"; string(got) != want {
		t.Fatalf("README after -w:\n%s\nwant:\n%s", got, want)
	}
	if problems, err := check(md, false); err != nil || len(problems) != 0 {
		t.Errorf("check after -w = %v, %v", problems, err)
	}
}

// The repository's README is in step with its Examples, as make check
// requires.
func TestRepositoryREADME(t *testing.T) {
	problems, err := check(filepath.Join("..", "..", "README.md"), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}
