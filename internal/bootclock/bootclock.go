// Package bootclock reads a clock for deadlines that must hold across a
// pause of the whole process or machine: a lease that lapses while a
// member is stopped has lapsed when it resumes, whatever Go's monotonic
// clock says.
//
// On Linux the clock is CLOCK_BOOTTIME, which counts the time the machine
// spent suspended as well (clock_gettime(2)); Go's monotonic clock is
// CLOCK_MONOTONIC there, which does not. Elsewhere it is Go's monotonic
// clock, so a suspended machine's sleep is not counted on those
// platforms. Either clock counts while only the process is stopped
// (SIGSTOP, a frozen cgroup): it is the machine's clock, not the
// process's.
package bootclock

import "time"

// Now is the time elapsed since a fixed origin (the machine's boot on
// Linux, an arbitrary instant elsewhere). Only differences between two
// readings of the same process mean anything; it never goes backwards.
func Now() time.Duration { return now() }

// origin anchors the portable clock: Go's monotonic reading of it.
var origin = time.Now()

// monotonic is Go's monotonic clock, since origin.
func monotonic() time.Duration { return time.Since(origin) }
