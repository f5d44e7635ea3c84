package mcpactor_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
)

// The wire-level fakes of this package's tests (skillServer,
// refusingServer, mrtrServer) answer what a fake of transport/mcptest
// cannot say: a skill whose file is not its entry's, a refused protocol
// version, a result with no resultType. They share the loop below; each
// decides its own answers.

// lineRequest is a JSON-RPC request as a line server reads it: its id, its
// method and its params decoded as P.
type lineRequest[P any] struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params P               `json:"params"`
}

// pipeDial returns a ServerConfig.Dial whose every connection is a
// net.Pipe whose far end serve runs on, in a goroutine of its own.
func pipeDial(serve func(net.Conn)) func(context.Context) (io.ReadWriteCloser, error) {
	return func(context.Context) (io.ReadWriteCloser, error) {
		ours, theirs := net.Pipe()
		go serve(theirs)
		return ours, nil
	}
}

// serveLines reads newline-delimited JSON-RPC from conn until it ends and
// writes answer's result, or its error when that is not nil, as the reply
// to each request. A line that does not decode, or has no id (a
// notification), gets no reply. conn is closed on return.
func serveLines[P any](conn net.Conn, answer func(req lineRequest[P]) (result, rpcErr map[string]any)) {
	defer conn.Close()
	in := bufio.NewScanner(conn)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var req lineRequest[P]
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification
		}
		result, rpcErr := answer(req)
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			reply["error"] = rpcErr
		} else {
			reply["result"] = result
		}
		line, _ := json.Marshal(reply)
		if _, err := conn.Write(append(line, '\n')); err != nil {
			return
		}
	}
}
