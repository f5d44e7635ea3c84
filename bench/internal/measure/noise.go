package measure

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Noise repeats the measurements that other processes disturbed, and
// keeps the account the report gives of it. The machines these benchmarks
// run on are shared (a CI run may start in the middle of a benchmark), and
// a round measured while another process took half the CPU says nothing
// about the clients; medians over rounds absorb some of that, repeating
// the worst rounds absorbs more, and the report says how much noise was
// left.
type Noise struct {
	// MaxOthers is the share of the machine's CPU (0 to 1) other processes
	// may use during a measurement before it is repeated; 1 never repeats.
	MaxOthers float64
	// Retries is how many times one measurement may be repeated.
	Retries int

	kept     []float64 // others' share during each measurement kept
	repeated int
}

// Flags registers -max-others and -retries on fs.
func (n *Noise) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&n.MaxOthers, "max-others", 0.2, "a measurement during which other processes used more than this share of the machine's CPU is repeated (after waiting up to 30 s for a quiet second), up to -retries times; 1 never repeats")
	fs.IntVar(&n.Retries, "retries", 2, "repetitions of a noisy measurement (see -max-others)")
}

// Measure runs f (attempt is 0 the first time) until other processes used
// at most MaxOthers of the machine meanwhile, or Retries repetitions have
// been made, waiting for a quiet second before each repetition. It
// returns f's last result and the share of the machine others used
// during it. label names the measurement in the line each repetition
// prints on stderr.
func Measure[T any](n *Noise, label string, f func(attempt int) T) (T, float64) {
	for attempt := 0; ; attempt++ {
		lm := startLoad()
		r := f(attempt)
		o, ok := lm.others()
		if !ok || o <= n.MaxOthers || attempt >= n.Retries {
			n.kept = append(n.kept, o)
			return r, o
		}
		n.repeated++
		fmt.Fprintf(os.Stderr, "%s: others used %.0f%% of the machine: repeated\n", label, 100*o)
		waitQuiet(n.MaxOthers, 30*time.Second)
	}
}

// ReportLine is the report's line on noise, or "" when nothing was
// measured.
func (n *Noise) ReportLine() string {
	if len(n.kept) == 0 {
		return ""
	}
	return fmt.Sprintf("other processes (not this benchmark's) used %.0f %% of the machine's CPU during the measurements kept (median; max %.0f %%); %d measurements were repeated because others used more than %.0f %%",
		100*Median(n.kept), 100*slices.Max(n.kept), n.repeated, 100*n.MaxOthers)
}

// loadMeter tells how much of the machine's CPU other processes used over
// a span of time: the busy time of all CPUs (/proc/stat) minus this
// process's and its waited-for children's (getrusage), over the CPUs'
// total time. Linux only; elsewhere it reports nothing.
type loadMeter struct {
	busy, total uint64        // jiffies
	ours        time.Duration // self + children CPU
	ok          bool
}

func startLoad() loadMeter {
	busy, total, ok := procStat()
	return loadMeter{busy: busy, total: total, ours: familyCPU(), ok: ok}
}

// others is the fraction (0 to 1) of the machine's CPU time since l that
// went to other processes; ok is false where it cannot be known.
func (l loadMeter) others() (float64, bool) {
	busy, total, ok := procStat()
	if !ok || !l.ok || total <= l.total {
		return 0, false
	}
	const jiffy = 10 * time.Millisecond // USER_HZ is 100 on Linux
	ours := float64(familyCPU()-l.ours) / float64(jiffy)
	f := (float64(busy-l.busy) - ours) / float64(total-l.total)
	return max(0, min(1, f)), true
}

// procStat reads the first line of /proc/stat: busy and total jiffies of
// all CPUs.
func procStat() (busy, total uint64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	var v [8]uint64
	for i := range v {
		v[i], _ = strconv.ParseUint(f[i+1], 10, 64)
	}
	// user nice system idle iowait irq softirq steal
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return busy, busy + v[3] + v[4], true
}

// waitQuiet waits, for at most limit, until other processes use less than
// threshold of the machine's CPU over a second.
func waitQuiet(threshold float64, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		l := startLoad()
		time.Sleep(time.Second)
		if o, ok := l.others(); !ok || o < threshold {
			return
		}
	}
}
