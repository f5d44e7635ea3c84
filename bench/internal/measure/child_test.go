package measure

import (
	"os"
	"strings"
	"testing"
)

const testChildEnv = "MCPACTOR_MEASURE_TEST_CHILD"

type childSpec struct{ N int }

type childResult struct{ Twice int }

// TestMain serves as the measurement child of TestRunChild when started
// as one: it doubles the spec's N, or fails on N < 0 without a result.
func TestMain(m *testing.M) {
	sp, ok, err := ChildSpec[childSpec](testChildEnv)
	if ok {
		if err != nil || sp.N < 0 {
			os.Exit(3)
		}
		os.Stdout.WriteString("noise before the result\n")
		ChildReply("test-result ", childResult{Twice: 2 * sp.N})
	}
	os.Exit(m.Run())
}

func TestRunChild(t *testing.T) {
	r, err := RunChild[childSpec, childResult](testChildEnv, "test-result ", childSpec{N: 21})
	if err != nil || r.Twice != 42 {
		t.Fatalf("RunChild = %+v, %v", r, err)
	}
	_, err = RunChild[childSpec, childResult](testChildEnv, "test-result ", childSpec{N: -1})
	if err == nil || !strings.HasPrefix(err.Error(), "measurement process: ") {
		t.Fatalf("a child that fails: %v", err)
	}
	t.Setenv(testChildEnv, "{not json")
	if _, ok, err := ChildSpec[childSpec](testChildEnv); !ok || err == nil || !strings.HasPrefix(err.Error(), "bad "+testChildEnv+": ") {
		t.Fatalf("ChildSpec of bad JSON: %v, %v", ok, err)
	}
}
