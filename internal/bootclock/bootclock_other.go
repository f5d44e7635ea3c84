//go:build !linux

package bootclock

// now is Go's monotonic clock: this platform's suspend-counting clock is
// not used (see the package comment).
var now = monotonic
