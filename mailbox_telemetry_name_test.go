package mcpactor_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpactor/mcpactor"
	"github.com/mcpactor/mcpactor/telemetry"
	"github.com/mcpactor/mcpactor/transport/mcptest"
)

// TestMailboxDepthNamesTelemetryName: the mailbox-depth gauge names a
// server by its ServerConfig.TelemetryName, as every other metric point
// and span does, not by the name it was connected under (a manager's or
// a cluster member's internal name).
func TestMailboxDepthNamesTelemetryName(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	rt, err := mcpactor.Start(mcpactor.Options{Telemetry: telemetry.Options{MeterProvider: mp}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &mcptest.Server{}
	defer srv.Close()
	defer rt.Stop(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := srv.InProcess()
	cfg.TelemetryName = "alpha"
	if _, err := rt.Connect(ctx, "alpha.1a2b3c4d.4", cfg); err != nil {
		t.Fatal(err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != telemetry.MetricMailboxDepth {
				continue
			}
			g, ok := m.Data.(metricdata.Gauge[int64])
			if !ok {
				t.Fatalf("%s is a %T, want an int64 gauge", m.Name, m.Data)
			}
			for _, p := range g.DataPoints {
				v, _ := p.Attributes.Value(telemetry.KeyServerName)
				names = append(names, v.AsString())
			}
		}
	}
	if len(names) != 1 || names[0] != "alpha" {
		t.Errorf("the mailbox-depth gauge names the servers %q; want [alpha], the TelemetryName", names)
	}
}
