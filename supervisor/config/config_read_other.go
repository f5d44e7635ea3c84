//go:build !unix

package config

// openNonBlocking is nothing where there are no FIFOs to open.
const openNonBlocking = 0
