package measure

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CallFlags are the flags the throughput commands share, so that the same
// flag means the same in each: how long and how often to measure, at
// which numbers of calls in flight, which clients, and where to write the
// report and a profile.
type CallFlags struct {
	Duration   time.Duration
	Warmup     time.Duration
	Rounds     int
	InFlight   []int
	Clients    []string
	Loads      []Load
	Out        string
	JSON       string
	CPUProfile string

	inflight, clients, loads string // as given, parsed by Check
	known                    []string
}

// Register registers the flags on fs; clients are the command's clients,
// in the order of its reports, duration is -duration's default,
// cpuprofile says which measurement -cpuprofile profiles.
func (f *CallFlags) Register(fs *flag.FlagSet, clients []string, duration time.Duration, cpuprofile string) {
	f.known = clients
	fs.DurationVar(&f.Duration, "duration", duration, "measurement time of each measurement")
	fs.DurationVar(&f.Warmup, "warmup", 500*time.Millisecond, "warm-up time after connecting, not measured")
	fs.IntVar(&f.Rounds, "rounds", 5, "rounds; the report gives medians over rounds")
	fs.StringVar(&f.inflight, "inflight", "1,16,256", "comma-separated calls in flight (one goroutine each)")
	fs.StringVar(&f.clients, "clients", strings.Join(clients, ","), "comma-separated clients: "+strings.Join(clients, ","))
	fs.StringVar(&f.loads, "loads", EchoUnique.Name, "comma-separated loads: "+strings.Join(loadNames(), ","))
	fs.StringVar(&f.Out, "out", "", "also write the markdown report to this file")
	fs.StringVar(&f.JSON, "json", "", "also write the results to this file as JSON (for cmd/benchrun's charts)")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "write a CPU profile of "+cpuprofile)
}

// Check parses the lists of -inflight and -clients, after the flags were
// parsed, and checks every value.
func (f *CallFlags) Check() error {
	var err error
	if f.InFlight, err = Levels(f.inflight); err != nil {
		return err
	}
	if f.Clients, err = ParseList("client", f.clients, f.known); err != nil {
		return err
	}
	f.Loads = nil
	for _, name := range strings.Split(f.loads, ",") {
		l, ok := LoadNamed(strings.TrimSpace(name))
		if !ok {
			return fmt.Errorf("unknown load %q (want some of %s)", name, strings.Join(loadNames(), ","))
		}
		f.Loads = append(f.Loads, l)
	}
	if f.Rounds < 1 || f.Duration <= 0 {
		return fmt.Errorf("-rounds and -duration must be positive")
	}
	return nil
}

// Levels parses a comma-separated list of numbers of calls in flight.
func Levels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad in-flight level %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func loadNames() []string {
	var names []string
	for _, l := range Loads {
		names = append(names, l.Name)
	}
	return names
}

// SetDefault changes the default of the flag name of fs, one Register
// registered, for a command whose defaults differ.
func SetDefault(fs *flag.FlagSet, name, value string) {
	f := fs.Lookup(name)
	f.DefValue = value
	_ = f.Value.Set(value)
}
