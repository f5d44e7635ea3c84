// Command benchserver is mcpactor's test server (internal/testserver) as a
// standalone binary, so that every client in a benchmark run spawns the very
// same executable.
package main

import (
	"os"

	"github.com/mcpactor/mcpactor/internal/testserver"
)

func main() { os.Exit(testserver.Main(os.Args[1:])) }
