package cluster

import (
	"encoding/json"
	"testing"

	"github.com/mcpactor/mcpactor"
)

// TestTaskRefJSON: a reference encodes what routing needs, a shared
// session's reads as the Manager's mcpactor.TaskRef, and a tenant's keeps
// its tenant through a round trip.
func TestTaskRefJSON(t *testing.T) {
	shared, err := json.Marshal(TaskRef{Server: "reports", ID: "task-7"})
	if err != nil {
		t.Fatal(err)
	}
	manager, _ := json.Marshal(mcpactor.TaskRef{Server: "reports", ID: "task-7"})
	if string(shared) != string(manager) {
		t.Errorf("shared session's reference %s; want the Manager's %s", shared, manager)
	}
	in := TaskRef{Server: "reports", Tenant: "alice@example.com", ID: "task-8"}
	b, _ := json.Marshal(in)
	var out TaskRef
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Errorf("round trip of %s = %+v, %v; want %+v", b, out, err, in)
	}
	if out.Identity() != (Identity{Server: "reports", Tenant: "alice@example.com"}) {
		t.Errorf("Identity() = %v", out.Identity())
	}
}

// TestTaskMethodsOnTheWire: the task methods cross the wire by name.
func TestTaskMethodsOnTheWire(t *testing.T) {
	for _, method := range []string{methodStartTask, methodGetTask, methodCancelTask, methodListTasks, methodAwaitTask} {
		msg := encodeRequest(&request{ID: 1, Server: "reports", Method: method, Name: "task-1", CallTimeout: 5})
		_, req, _, err := decode(msg)
		if err != nil || req.Method != method || req.Name != "task-1" || req.CallTimeout != 5 {
			t.Errorf("%s decoded as %+v, %v", method, req, err)
		}
	}
}
