package testserver

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"testing"
)

// BenchmarkEcho measures the echo round trip through Serve over pipes with
// 256 requests in flight, the load the project's benchmark applies.
func BenchmarkEcho(b *testing.B) {
	const inFlight = 256
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := Serve(ctx, inR, outW, nil, Options{})
		outW.Close()
		done <- err
	}()
	defer func() {
		inW.Close()
		cancel()
		<-done
	}()

	// The writer keeps at most inFlight requests unanswered.
	slots := make(chan struct{}, inFlight)
	go func() {
		w := bufio.NewWriter(inW)
		for i := range b.N {
			select {
			case slots <- struct{}{}:
			default:
				// Flush only before waiting, as a client's writer would.
				w.Flush()
				slots <- struct{}{}
			}
			w.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) +
				`,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, benchmark"}}}` + "\n")
		}
		w.Flush()
	}()
	r := bufio.NewReader(outR)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		<-slots
	}
	b.StopTimer()
	go io.Copy(io.Discard, r) //nolint:errcheck // drains until Serve closes outW
}
