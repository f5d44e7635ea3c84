//go:build race

package mcpactor_test

// raceOn is true when the race detector is on: it allocates on its own
// account, so allocation counts are not the runtime's.
const raceOn = true
