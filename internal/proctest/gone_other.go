//go:build !unix

package proctest

import (
	"errors"
	"fmt"
)

// haveGone: Gone cannot tell on this platform.
const haveGone = false

// Gone cannot tell without kill(pid, 0): it reports false and an error
// wrapping errors.ErrUnsupported.
func Gone(pid int) (gone bool, err error) {
	return false, fmt.Errorf("proctest: cannot tell whether process %d exists on this platform: %w", pid, errors.ErrUnsupported)
}
