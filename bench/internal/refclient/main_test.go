package refclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fastserverBin is bench/cmd/fastserver, built once for the test binary.
var fastserverBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv("REFCLIENT_FAKE_SERVER"); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "refclient-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fastserverBin = filepath.Join(dir, "fastserver")
	build := exec.Command(goTool(), "build", "-o", fastserverBin, "../../cmd/fastserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fastserver:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool is the go command: go test puts its toolchain's bin first in
// PATH, so the server is built by the same Go.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func fastserver() *exec.Cmd { return exec.Command(fastserverBin) }

// fake is this test binary acting as a scripted server (see fakeServer).
func fake(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "REFCLIENT_FAKE_SERVER="+mode)
	return cmd
}

// fakeServer serves in one of these modes:
//
//   - weird: a correct but unusual server: before every answer it sends a
//     notification and a request (string id), answers with the fields in
//     an unusual order, with extra fields and a second content item, and
//     escapes as encoding/json does (\u003c for <); the tool count answers
//     how many -32601 error answers to its requests it has received;
//   - silent: reads and never answers;
//   - exit: exits at once with status 3;
//   - stubborn: does the handshake, then ignores the end of stdin and
//     stays until killed.
func fakeServer(mode string) {
	switch mode {
	case "exit":
		os.Exit(3)
	case "silent":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		return
	}
	out := bufio.NewWriter(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	gotErrors, n := 0, 0
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Message string `json:"message"`
				} `json:"arguments"`
			} `json:"params"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		switch {
		case msg.Method == "" && msg.Error != nil && msg.Error.Code == -32601 && strings.HasPrefix(string(msg.ID), `"srv-`):
			gotErrors++
		case msg.Method == "initialize":
			fmt.Fprintf(out, `{"result":{"serverInfo":{"name":"fake","version":"0"},"capabilities":{"tools":{}},"protocolVersion":"2025-06-18"},"jsonrpc":"2.0","id":%s}`+"\n", msg.ID)
		case msg.Method == "tools/call" && mode == "weird":
			n++
			fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"id":%d,"result":"no"}}}`+"\n", n)
			fmt.Fprintf(out, `{"method":"roots/list","params":{},"jsonrpc":"2.0","id":"srv-%d"}`+"\n", n)
			text := msg.Params.Arguments.Message
			if msg.Params.Name == "count" {
				text = fmt.Sprint(gotErrors)
			}
			quoted, _ := json.Marshal(text)
			fmt.Fprintf(out, `{"result":{"_meta":{"x":[1,{"text":"no","id":0}],"s":"}]\"\\"},"isError":false,"content":[{"text":%s,"annotations":{"a":[]},"type":"text"},{"type":"text","text":"second"}]},"extra":"\"id\":1","id":%s,"jsonrpc":"2.0"}`+"\n", quoted, msg.ID)
		}
		out.Flush()
	}
	out.Flush()
	if mode == "stubborn" {
		time.Sleep(time.Hour)
	}
}

// checkNoGoroutines fails t if a goroutine of the clients, or of os/exec,
// is still there (after giving the ones on their way out a moment).
func checkNoGoroutines(t *testing.T) {
	t.Helper()
	var stacks string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		if !leaked(stacks) {
			return
		}
	}
	t.Errorf("goroutines left behind:\n%s", stacks)
}

func leaked(stacks string) bool {
	for _, g := range strings.Split(stacks, "\n\n") {
		for _, f := range []string{"refclient.(*writer)", "refclient.(*Blocking).read", "refclient.(*EventLoop).read", "refclient.(*proc)", "os/exec."} {
			if strings.Contains(g, f) {
				return true
			}
		}
	}
	return false
}

// mustStart starts a client of cmd with start (named name in the failure),
// the handshake bounded by 10s, and fails t if it cannot.
func mustStart[C any](t *testing.T, name string, start func(context.Context, *exec.Cmd) (C, error), cmd *exec.Cmd) C {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := start(ctx, cmd)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

func closeOK(t *testing.T, c interface{ Close(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	checkNoGoroutines(t)
}
