package measure

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// What was measured on what: the mcpactor source and the processor, the
// two facts besides the date that make numbers from different runs
// comparable or not.

// ModuleVersion describes the mcpactor source measured (the bench module
// replaces mcpactor with the repository it sits in): its git commit,
// marked when the working tree has changes to tracked files outside docs/
// (which a run of cmd/benchrun itself writes). git runs in
// this source file's directory, so the answer does not depend on the
// directory the benchmark was started from.
func ModuleVersion() string {
	dir := "."
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir = filepath.Dir(file)
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown commit"
	}
	v := "commit " + strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no", "--", ":(top)", ":(top,exclude)docs").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		v += " + uncommitted changes"
	}
	return v
}

// CPUModel is the processor's model name from /proc/cpuinfo, or the
// machine's architecture where there is none.
func CPUModel() string {
	out, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	if out, err := exec.Command("uname", "-m").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return "unknown CPU"
}
