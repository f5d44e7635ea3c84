//go:build unix

package proctest

import (
	"errors"
	"syscall"
)

// haveGone: Gone can tell on this platform.
const haveGone = true

// Gone reports whether pid no longer exists, that is kill(pid, 0) fails
// with ESRCH: a zombie not yet reaped is not gone. err is what kill
// returned, for the caller's message.
func Gone(pid int) (gone bool, err error) {
	err = syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH), err
}
