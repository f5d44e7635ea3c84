package main

import "testing"

// TestClusterSoakShort is the cluster soak's short mode, in `make test`:
// an etcd and three members as processes, six servers, callers on every
// member through member.Exposed(), and for about a minute faults drawn
// in a shuffled cycle of every kind (a member killed, a member paused
// past its lease, the whole machine frozen, etcd restarted, a server
// killed under its owner, a member added and removed), each at least once.
// Every check of the long run is made; a recovery over its bound while
// the control probe says the machine was starved is inconclusive,
// logged, not failed.
func TestClusterSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("the cluster soak's short mode takes about 90 s")
	}
	cfg := shortClusterConfig()
	cfg.log = testLog{t}
	rep, err := runCluster(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.summary())
	drawn := map[string]bool{}
	for _, f := range rep.faults {
		if f.Err != "" {
			t.Errorf("fault %s on %s#%d not made: %s", f.Kind, f.Member, f.Inst, f.Err)
		}
		drawn[f.Kind] = true
	}
	for _, k := range clusterFaultKinds {
		if !drawn[k] {
			t.Errorf("no fault of kind %q in the short mode", k)
		}
	}
	switch rep.verdict() {
	case verdictFail:
		t.Fatal("failed checks: ", rep.failures())
	case verdictInconclusive:
		t.Log("inconclusive, not failed: ", rep.failures())
	}
}
