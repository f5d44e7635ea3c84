// Command fastserver is bench/internal/fastserver as a program: a fast
// MCP server on stdin/stdout that writes each answer on its own, with the
// tools echo {message}, big {bytes} and sleep {ms}. It exits when stdin
// closes.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mcpactor/mcpactor/bench/internal/fastserver"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: fastserver\n\n"+
			"A fast MCP server on stdin/stdout (newline-delimited JSON-RPC) with the tools\n"+
			"echo {message}, big {bytes} and sleep {ms}; each answer is written on its own.\n"+
			"It exits when stdin closes.\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := fastserver.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fastserver:", err)
		os.Exit(1)
	}
}
