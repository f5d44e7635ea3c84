package testserver

import (
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestArgsRoundTrip(t *testing.T) {
	for _, o := range []Options{
		{},
		{
			PageSize: 3, EndlessCursor: true, ToolWithoutSchema: true, ReportCancels: true, SilentOnUnknown: true, IgnorePing: true,
			Banner: "line one\n-line two=with equals", NoiseEvery: 4, HugeFrameBytes: 20 << 20,
			EndlessLine: true, StderrFloodBytes: 1 << 20, ExitAfterRequests: 2, ExitCode: 7,
			StderrOnExit: "bye\nnow", IgnoreSIGTERM: true, NeverAnswer: true, OutOfOrder: true,
			StringIDs: true, SlowInitialize: 1500 * time.Millisecond, ProtocolVersion: "1999-01-01",
		},
		{ExitAtStart: true, ExitCode: 0},
		{ExitAtStart: true, ExitCode: 9, StderrOnExit: "early"},
	} {
		got, err := parseOptions(o.Args(), nil, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", o.Args(), err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("round trip of %q:\n got %+v\nwant %+v", o.Args(), got, o)
		}
	}
	if args := (Options{}).Args(); len(args) != 0 {
		t.Errorf("zero Options renders %q", args)
	}
}

func TestEveryFieldHasAFlag(t *testing.T) {
	// A field added to Options without a flag would silently not reach a
	// child process: make the round trip cover every field.
	var o Options
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("s" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		default:
			t.Fatalf("field %s: kind %s not handled", v.Type().Field(i).Name, f.Kind())
		}
	}
	got, err := parseOptions(o.Args(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, o) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, o)
	}
}

func TestEnvDefaults(t *testing.T) {
	env := []string{"PATH=/bin", "MCPACTOR_TESTSERVER_NOISE_EVERY=3", "MCPACTOR_TESTSERVER_STRING_IDS=true",
		"MCPACTOR_TESTSERVER_BANNER=from env"}
	got, err := parseOptions([]string{"-banner=from flag"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Options{NoiseEvery: 3, StringIDs: true, Banner: "from flag"}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := parseOptions(nil, []string{"MCPACTOR_TESTSERVER_NOISE_EVERY=many"}, io.Discard); err == nil {
		t.Error("bad env value accepted")
	}
	if _, err := parseOptions([]string{"-no-such-flag"}, nil, io.Discard); err == nil {
		t.Error("unknown flag accepted")
	}
	if _, err := parseOptions([]string{"stray"}, nil, io.Discard); err == nil {
		t.Error("stray argument accepted")
	}
}

func TestCommand(t *testing.T) {
	t.Setenv("MCPACTOR_TESTSERVER_NOISE_EVERY", "1")
	path, args, env := Command(Options{StringIDs: true})
	if path == "" || !reflect.DeepEqual(args, []string{"-string-ids"}) {
		t.Errorf("path %q args %q", path, args)
	}
	var child, gorace int
	for _, kv := range env {
		if strings.HasPrefix(kv, "GORACE=") {
			gorace++
			if !strings.Contains(kv, "atexit_sleep_ms=0") {
				t.Errorf("%s", kv)
			}
		}
		if strings.HasPrefix(kv, EnvPrefix) {
			t.Errorf("inherited %s", kv)
		}
		if kv == EnvChild+"=1" {
			child++
		}
	}
	if child != 1 || gorace != 1 {
		t.Errorf("%s=1 appears %d times, GORACE %d times", EnvChild, child, gorace)
	}
	t.Setenv("GORACE", "halt_on_error=1")
	_, _, env = Command(Options{})
	if !slices.Contains(env, "GORACE=halt_on_error=1 atexit_sleep_ms=0") {
		t.Errorf("GORACE not extended: %q", env)
	}
}
