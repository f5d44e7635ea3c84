//go:build unix

package config

import "syscall"

// openNonBlocking opens a FIFO without waiting for a writer; a regular
// file reads as usual.
const openNonBlocking = syscall.O_NONBLOCK
