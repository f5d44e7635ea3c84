package measure

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// WriteRunInfo writes the lines every report starts with, as a markdown
// list: the command that made it (program is the command's directory
// under bench/cmd), the date, the machine and the mcpactor source
// measured. Numbers from a shared machine mean little without them.
func WriteRunInfo(w io.Writer, program string) {
	args := ""
	for i := 1; i < len(os.Args); i++ {
		// Where the report and results went says nothing about the
		// measurement (cmd/benchrun passes files of its own).
		switch a := os.Args[i]; {
		case a == "-out" || a == "-json":
			i++
		case strings.HasPrefix(a, "-out=") || strings.HasPrefix(a, "-json="):
		default:
			args += " " + a
		}
	}
	fmt.Fprintf(w, "- command: `go -C bench run ./cmd/%s%s`\n", program, args)
	fmt.Fprintf(w, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "- machine: %s, nproc %d, GOMAXPROCS %d, %s %s/%s\n", CPUModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "- mcpactor: %s\n", ModuleVersion())
}

// WriteReport prints a report on stdout and, when path is not empty, also
// writes it to that file.
func WriteReport(report, path string) error {
	fmt.Print(report)
	if path == "" {
		return nil
	}
	return os.WriteFile(path, []byte(report), 0o644)
}
