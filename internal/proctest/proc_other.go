//go:build !linux

package proctest

import (
	"errors"
	"fmt"
)

// haveProc: this platform has no /proc.
const haveProc = false

// errNoProc is what a lookup returns off Linux.
var errNoProc = fmt.Errorf("proctest: no /proc on this platform: %w", errors.ErrUnsupported)

// ChildWithEnv finds nothing without /proc.
func ChildWithEnv(entry string) int { return 0 }

// WithEnv finds nothing without /proc.
func WithEnv(entry, comm string) int { return 0 }

// Children fails without /proc.
func Children(substr string) ([]int, error) { return nil, errNoProc }

// Stat finds nothing without /proc.
func Stat(pid int) (ppid int, state string, ok bool) { return 0, "", false }
