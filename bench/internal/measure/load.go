package measure

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpactor/mcpactor/bench/internal/jsonscan"
)

// Load is what a measurement's calls are: which tool, with which
// arguments, and what text each answer must carry. Every client gets the
// arguments already encoded (a json.RawMessage), so that no client pays
// for the benchmark's own encoding, and a fixed load allocates nothing of
// its own per call: what a measurement counts is the client's.
type Load struct {
	// Name is the load's name in reports and flags.
	Name string
	Tool string
	kind loadKind
	n    int    // bytes for big, milliseconds for sleep
	want string // the answer's text, for the loads whose text is fixed
	args json.RawMessage
}

type loadKind int

const (
	echoUnique loadKind = iota
	echoFixed
	bigResult
	sleepFor
)

// The loads of the benchmarks.
var (
	// EchoUnique calls echo with a message of its own per call
	// ("hello-<goroutine>-<seq>"), so that an answer given to the wrong
	// call shows; building it is one allocation per call, the same for
	// every client.
	EchoUnique = Load{Name: "echo-unique", Tool: "echo", kind: echoUnique}
	// EchoFixed calls echo with the same message every time, so that the
	// benchmark allocates nothing per call.
	EchoFixed = fixedEcho("hello-fixed-payload-0123456789")
)

func fixedEcho(msg string) Load {
	return Load{Name: "echo-fixed", Tool: "echo", kind: echoFixed, want: msg, args: AppendArgs(nil, "message", msg)}
}

// Big calls the tool big, whose answer is one text content of n 'x'
// characters.
func Big(n int) Load {
	return Load{Name: "big-" + strconv.Itoa(n), Tool: "big", kind: bigResult, n: n,
		want: strings.Repeat("x", n), args: json.RawMessage(`{"bytes":` + strconv.Itoa(n) + `}`)}
}

// Sleep calls the tool sleep, which answers "slept <ms>ms" after ms
// milliseconds.
func Sleep(ms int) Load {
	return Load{Name: "sleep-" + strconv.Itoa(ms) + "ms", Tool: "sleep", kind: sleepFor, n: ms,
		want: "slept " + strconv.Itoa(ms) + "ms", args: json.RawMessage(`{"ms":` + strconv.Itoa(ms) + `}`)}
}

// Loads are the loads a -load flag can name.
var Loads = []Load{EchoUnique, EchoFixed, Big(64 << 10), Sleep(1000)}

// LoadNamed is the load of Loads with the given name.
func LoadNamed(name string) (Load, bool) {
	for _, l := range Loads {
		if l.Name == name {
			return l, true
		}
	}
	return Load{}, false
}

// Call is goroutine g's i-th call of the load: its arguments and the text
// its answer must carry.
func (l Load) Call(g, i int) (json.RawMessage, string) {
	if l.kind != echoUnique {
		return l.args, l.want
	}
	msg := uniqueMessage(g, i)
	return AppendArgs(make([]byte, 0, len(msg)+16), "message", msg), msg
}

func uniqueMessage(g, i int) string {
	return "hello-" + strconv.Itoa(g) + "-" + strconv.Itoa(i)
}

// AppendCallArgs appends the arguments of the i-th call of the load (for
// a client that keeps its own calls going, goroutine 0) to b.
func (l Load) AppendCallArgs(b []byte, i uint64) []byte {
	if l.kind != echoUnique {
		return append(b, l.args...)
	}
	b = append(b, `{"message":"hello-0-`...)
	b = strconv.AppendUint(b, i, 10)
	return append(b, `"}`...)
}

// AppendWant appends the text the i-th call's answer must carry, as it
// appears JSON-escaped between the quotes of a string: the loads' texts
// need no escapes.
func (l Load) AppendWant(b []byte, i uint64) []byte {
	if l.kind != echoUnique {
		return append(b, l.want...)
	}
	b = append(b, "hello-0-"...)
	return strconv.AppendUint(b, i, 10)
}

// AppendArgs appends the JSON object {key: value}, value a string.
func AppendArgs(b []byte, key, value string) []byte {
	b = append(b, '{')
	b = jsonscan.AppendString(b, key)
	b = append(b, ':')
	b = jsonscan.AppendString(b, value)
	return append(b, '}')
}
