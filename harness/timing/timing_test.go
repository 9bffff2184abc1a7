package timing

import (
	"math"
	"strings"
	"testing"
)

func TestPercentileMatchesNumpyLinear(t *testing.T) {
	// numpy.percentile([1, 2, 3, 4, 10], [50, 95, 99]) = [3.0, 8.8, 9.76]
	v := []float64{10, 1, 4, 2, 3}
	for p, want := range map[float64]float64{50: 3, 95: 8.8, 99: 9.76, 0: 1, 100: 10} {
		if got := Percentile(v, p); math.Abs(got-want) > 1e-12 {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("percentile of nothing is not NaN")
	}
}

func TestSummarizeFiguresAndFormulas(t *testing.T) {
	samples := []Sample{
		{ClientMS: 110, TaskMS: 100, StartNS: 0, EndNS: 110e6, AudioSeconds: 1},
		{ClientMS: 220, TaskMS: 200, StartNS: 100e6, EndNS: 2000e6, AudioSeconds: 3},
	}
	s, err := Summarize(samples)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"benchmark_duration": 2, "request_throughput": 1, "audio_seconds_per_second": 2,
		"rtf": 0.075, "rtfx": 4000.0 / 300.0, "client_minus_task_p50": 15, "client_latency_p50": 165, "task_call_p50": 150}
	for name, v := range want {
		got, ok := s.Get(name)
		if !ok || math.Abs(got-v) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, v)
		}
	}
	for _, f := range s.Figures {
		if f.Formula == "" || f.Unit == "" {
			t.Errorf("figure %s has no formula or unit", f.Name)
		}
	}
	if _, err := Summarize([]Sample{{ClientMS: 5, TaskMS: 6}}); err == nil || !strings.Contains(err.Error(), "client latency") {
		t.Errorf("client below task time accepted: %v", err)
	}
	if _, err := Summarize(nil); err == nil {
		t.Error("empty summary accepted")
	}
}
