package main

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/mcpactor/mcpactor/bench/internal/measure"
)

// area is where a function belongs, for the CPU summary: by package, and
// the runtime's parts by what they do.
func area(fn string) string {
	switch {
	case strings.HasPrefix(fn, "github.com/mcpactor/mcpactor/bench/"):
		return "the benchmark's callers"
	case strings.HasPrefix(fn, "github.com/mcpactor/mcpactor/"):
		pkg := strings.TrimPrefix(fn, "github.com/mcpactor/mcpactor/")
		if i := strings.IndexAny(pkg, "./"); i > 0 && !strings.HasPrefix(pkg[i:], "/") {
			return "mcpactor: " + pkg[:i]
		}
		if i := strings.Index(pkg, "."); i > 0 {
			return "mcpactor: " + pkg[:i]
		}
		return "mcpactor"
	case strings.HasPrefix(fn, "github.com/asynkron/protoactor-go"):
		return "protoactor"
	case strings.HasPrefix(fn, "go.opentelemetry.io/"):
		return "OpenTelemetry (no-op)"
	case strings.HasPrefix(fn, "syscall.") || strings.HasPrefix(fn, "internal/runtime/syscall") || strings.HasPrefix(fn, "internal/poll.") || strings.HasPrefix(fn, "os."):
		return "system calls (pipe read/write)"
	case strings.HasPrefix(fn, "runtime."):
		return runtimeArea(strings.TrimPrefix(fn, "runtime."))
	case strings.HasPrefix(fn, "encoding/json."):
		return "encoding/json"
	case strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "sync/atomic.") ||
		strings.HasPrefix(fn, "internal/sync.") || strings.HasPrefix(fn, "internal/runtime/atomic."):
		return "locks and atomics"
	case strings.HasPrefix(fn, "internal/runtime/maps."):
		return "runtime: maps"
	case strings.HasPrefix(fn, "internal/runtime/gc/"):
		return "runtime: garbage collection"
	case strings.HasPrefix(fn, "reflect.") || strings.HasPrefix(fn, "internal/abi."):
		return "reflection"
	case strings.HasPrefix(fn, "time."):
		return "clocks"
	}
	return "other"
}

func runtimeArea(fn string) string {
	for _, p := range []string{"gc", "scan", "mark", "sweep", "bgsweep", "bgscavenge", "greyobject", "findObject", "wbBuf", "heapBits", "spanOf", "typePointers", "(*gcWork)", "(*mspan).typePointers"} {
		if strings.HasPrefix(fn, p) {
			return "runtime: garbage collection"
		}
	}
	for _, p := range []string{"malloc", "newobject", "makeslice", "makechan", "growslice", "(*mcache)", "(*mcentral)", "(*mheap)", "nextFree", "rawstring", "slicebytetostring", "concatstring"} {
		if strings.HasPrefix(fn, p) {
			return "runtime: allocation"
		}
	}
	for _, p := range []string{"nanotime", "walltime"} {
		if strings.HasPrefix(fn, p) {
			return "clocks"
		}
	}
	for _, p := range []string{"memmove", "memclr", "memequal"} {
		if strings.HasPrefix(fn, p) {
			return "runtime: memory copies"
		}
	}
	for _, p := range []string{"futex", "usleep", "osyield", "epoll", "netpoll"} {
		if strings.HasPrefix(fn, p) {
			return "runtime: waking threads and the poller"
		}
	}
	for _, p := range []string{"schedule", "findRunnable", "park", "goready", "ready", "runqget", "runqput", "runqgrab", "runqsteal", "stealWork", "execute", "gopark", "goexit", "newproc", "gfget", "gfput", "mcall", "casgstatus", "systemstack", "wakep", "sel", "(*waitq)", "procyield", "tryDeferToSpanScan", "startm", "stopm", "notesleep", "notewakeup", "mPark", "resetspinning", "checkTimers", "selectgo", "chansend", "chanrecv", "send", "recv", "lock", "unlock", "semacquire", "semrelease", "(*timer)", "(*timers)", "acquireSudog", "releaseSudog", "procyield", "injectglist", "entersyscall", "exitsyscall", "reentersyscall"} {
		if strings.HasPrefix(fn, p) {
			return "runtime: scheduling, channels and timers"
		}
	}
	return "runtime: other"
}

// byFunction sums the profile's first sample value (CPU samples'
// nanoseconds, or allocations' counts) by the function of each sample's
// leaf frame, or with skip the first frame that skip does not skip.
func byFunction(p *profile.Profile, index int, skip func(string) bool) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		if profilers(s) {
			continue
		}
		fn := "?"
	frames:
		for _, loc := range s.Location {
			// A location's lines are innermost first (inlined calls).
			for _, l := range loc.Line {
				if l.Function == nil {
					continue
				}
				if skip == nil || !skip(l.Function.Name) {
					fn = l.Function.Name
					break frames
				}
			}
		}
		out[fn] += s.Value[index]
	}
	return out
}

// profilers is whether a sample is the profiling's own work (writing or
// reading a profile), not the calls'.
func profilers(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && (strings.HasPrefix(l.Function.Name, "runtime/pprof.") || strings.HasPrefix(l.Function.Name, "github.com/google/pprof/")) {
				return true
			}
		}
	}
	return false
}

type kv struct {
	key string
	v   int64
}

func sorted(m map[string]int64) []kv {
	var out []kv
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	slices.SortFunc(out, func(a, b kv) int { return cmp.Or(cmp.Compare(b.v, a.v), strings.Compare(a.key, b.key)) })
	return out
}

// cpuIndex is the index of the CPU profile's nanoseconds.
func cpuIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Unit == "nanoseconds" {
			return i
		}
	}
	return len(p.SampleType) - 1
}

// writeCPU writes the CPU tables and returns each area's share.
func writeCPU(b *bytes.Buffer, p *profile.Profile) map[string]float64 {
	i := cpuIndex(p)
	fns := byFunction(p, i, nil)
	var total int64
	areas := map[string]int64{}
	for fn, v := range fns {
		total += v
		areas[area(fn)] += v
	}
	shares := map[string]float64{}
	b.WriteString("| area (CPU) | share |\n|---|---:|\n")
	for _, a := range sorted(areas) {
		share := float64(a.v) / float64(total)
		shares["cpu:"+a.key] = share
		fmt.Fprintf(b, "| %s | %.1f %% |\n", a.key, 100*share)
	}
	b.WriteString("\n| function (CPU, flat) | share |\n|---|---:|\n")
	for _, f := range top(sorted(fns), 15) {
		fmt.Fprintf(b, "| `%s` | %.1f %% |\n", short(f.key), 100*float64(f.v)/float64(total))
	}
	b.WriteString("\n")
	return shares
}

// writeAllocs writes the allocations per call by the function that made
// them.
func writeAllocs(b *bytes.Buffer, p *profile.Profile, calls int) {
	objects, space := -1, -1
	for i, st := range p.SampleType {
		switch st.Type {
		case "alloc_objects":
			objects = i
		case "alloc_space":
			space = i
		}
	}
	if objects < 0 || space < 0 {
		return
	}
	inRuntime := func(fn string) bool {
		return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/") ||
			fn == "reflect.unsafe_New" || fn == "reflect.unsafe_NewArray"
	}
	objs, bytesBy := byFunction(p, objects, inRuntime), byFunction(p, space, inRuntime)
	var n, sz int64
	for _, v := range objs {
		n += v
	}
	for _, v := range bytesBy {
		sz += v
	}
	fmt.Fprintf(b, "Allocations: %.1f per call, %s per call, the benchmark's callers included (none for echo-fixed).\n\n", float64(n)/float64(calls), measure.Bytes(float64(sz)/float64(calls)))
	b.WriteString("| allocated by | allocations/call | bytes/call |\n|---|---:|---:|\n")
	for _, f := range top(sorted(bytesBy), 15) {
		if float64(f.v)/float64(calls) < 1 {
			break
		}
		fmt.Fprintf(b, "| `%s` | %.2f | %s |\n", short(f.key), float64(objs[f.key])/float64(calls), measure.Bytes(float64(f.v)/float64(calls)))
	}
	b.WriteString("\n")
}

func top(xs []kv, n int) []kv { return xs[:min(n, len(xs))] }

// short drops the module paths of a function's name.
func short(fn string) string {
	for _, p := range []string{"github.com/mcpactor/mcpactor/", "github.com/asynkron/protoactor-go/", "go.opentelemetry.io/otel/"} {
		fn = strings.ReplaceAll(fn, p, "")
	}
	return fn
}
