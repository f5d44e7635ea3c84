//go:build race

package transport

// raceOn is true when the race detector is on: it changes what sync.Pool
// keeps, so allocation counts are not the runtime's.
const raceOn = true
