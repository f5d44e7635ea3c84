package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// callRec is one call of the history, written when the call returns.
// IDs are given out in order as calls start, so a missing ID is a call
// that never ended and a repeated one a call that ended twice. Times are
// nanoseconds since the run's start. The history is a file, not memory:
// half an hour of calls would otherwise be what the RSS check measures.
type callRec struct {
	ID       uint32
	Server   uint16
	Op       uint8
	Class    class
	Cause    cause
	Spans    uint8 // the runtime's CLIENT spans under the call, ended by its return
	SpanType uint8 // the error.type of the (last) one, as a spanTypeCode
	Late     uint8 // progress notifications delivered after the call returned
	Gen      uint32
	Start    int64
	End      int64
	Limit    int64 // the call's deadline, ns after Start (0: none)
}

// spanTypeCodes numbers error.type values; "rpc" stands for every
// JSON-RPC code, "http" for every HTTP status (an HTTP error answer
// without a JSON-RPC error in its body, an expired session:
// docs/telemetry.md, error.type).
var spanTypeCodes = []string{"", "tool_error", "timeout", "cancelled", "transport_closed", "_OTHER", "rpc", "?", "http"}

func spanTypeCode(s string) uint8 {
	for i, t := range spanTypeCodes {
		if t == s {
			return uint8(i)
		}
	}
	if n, err := strconv.Atoi(s); err == nil {
		// An HTTP status is three digits, 100 to 599; JSON-RPC's codes
		// are negative (its reserved ones, and the servers' in practice).
		if len(s) == 3 && n >= 100 && n <= 599 {
			return 8
		}
		return 6
	}
	return 7
}

// history appends call records to a file.
type history struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	err   error
	count atomic.Int64 // records written: the sampler's calls/s
}

func newHistory(path string) (*history, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &history{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add appends one fixed-size record: a *callRec, or the cluster soak's
// *clusterRec (cluster_history.go).
func (h *history) add(r any) {
	h.mu.Lock()
	if h.err == nil {
		h.err = binary.Write(h.w, binary.LittleEndian, r)
	}
	h.mu.Unlock()
	h.count.Add(1)
}

// flush writes out what is buffered: a member process of the cluster
// soak flushes every second, so that a SIGKILL loses at most a second of
// its records.
func (h *history) flush() {
	h.mu.Lock()
	if h.err == nil {
		h.err = h.w.Flush()
	}
	h.mu.Unlock()
}

func (h *history) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	err := errors.Join(h.err, h.w.Flush(), h.f.Close())
	h.err = errors.New("history closed")
	return err
}

// readHistory calls f for every record of the file, in the order written.
func readHistory(path string, f func(*callRec)) error { return readRecords(path, f) }

// readRecords calls f for every fixed-size record of type T in the file,
// in the order written; a record cut short by a kill ends the file.
func readRecords[T any](path string, f func(*T)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := bufio.NewReaderSize(file, 1<<20)
	var rec T
	for {
		if err := binary.Read(r, binary.LittleEndian, &rec); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		f(&rec)
	}
}
