package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// A measurement child is this program re-executed to take one measurement
// in a fresh process (so that what one measurement leaves behind, heap or
// goroutines, never counts in the next). The parent passes the spec as
// JSON in the environment variable env; the child prints its result as
// JSON on a line of stdout after prefix, and nothing else it prints
// matters.

// RunChild runs one measurement child for sp and returns its result.
func RunChild[S, R any](env, prefix string, sp S) (R, error) {
	var r R
	exe, err := os.Executable()
	if err != nil {
		return r, err
	}
	js, err := json.Marshal(sp)
	if err != nil {
		return r, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env+"="+string(js))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	for line := range strings.SplitSeq(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			if jerr := json.Unmarshal([]byte(rest), &r); jerr != nil {
				return r, jerr
			}
			return r, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("no result line in %q", out)
	}
	return r, fmt.Errorf("measurement process: %w", err)
}

// ChildSpec is the spec the parent passed in env; ok is false when this
// process is not a measurement child.
func ChildSpec[S any](env string) (sp S, ok bool, err error) {
	js := os.Getenv(env)
	if js == "" {
		return sp, false, nil
	}
	if err := json.Unmarshal([]byte(js), &sp); err != nil {
		return sp, true, fmt.Errorf("bad %s: %v", env, err)
	}
	return sp, true, nil
}

// ChildReply prints r for the parent, after prefix, and exits.
func ChildReply[R any](prefix string, r R) {
	b, _ := json.Marshal(r)
	fmt.Println(prefix + string(b))
	os.Exit(0)
}
