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

// Two runs 60 s apart: every rate is the mean of the runs' own rates, never diluted by the gap
// between them (one window over both runs would give 4 requests / 62 s).
func TestRatesArePerRunMeans(t *testing.T) {
	const s = int64(1e9)
	samples := []Sample{
		{ClientMS: 10, TaskMS: 5, StartNS: 0, EndNS: 1 * s, AudioSeconds: 2, Run: 0},
		{ClientMS: 10, TaskMS: 5, StartNS: 0, EndNS: 1 * s, AudioSeconds: 2, Run: 0},
		{ClientMS: 10, TaskMS: 10, StartNS: 60 * s, EndNS: 62 * s, AudioSeconds: 1, Run: 1},
		{ClientMS: 10, TaskMS: 10, StartNS: 61 * s, EndNS: 62 * s, AudioSeconds: 1, Run: 1},
	}
	sum, err := Summarize(samples)
	if err != nil {
		t.Fatal(err)
	}
	// run 0: 2 req / 1 s, 4 audio-s / 1 s, RTF 10/4000; run 1: 2 req / 2 s, 2 audio-s / 2 s, RTF 20/2000.
	want := map[string]float64{"benchmark_duration": 1.5, "request_throughput": 1.5, "audio_seconds_per_second": 2.5,
		"rtf": (10.0/4000 + 20.0/2000) / 2, "rtfx": (400.0 + 100.0) / 2}
	for name, v := range want {
		if got, ok := sum.Get(name); !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, v)
		}
	}
	for _, f := range sum.Figures {
		if strings.Contains(f.Name, "per_second") || f.Name == "request_throughput" || f.Name == "rtf" {
			if !strings.HasPrefix(f.Formula, "mean over AIPerf runs of") {
				t.Errorf("%s formula %q does not state the per-run mean", f.Name, f.Formula)
			}
		}
	}
	images := []Sample{{ClientMS: 1, StartNS: 0, EndNS: s, Images: 2, Run: 0}, {ClientMS: 1, StartNS: 10 * s, EndNS: 14 * s, Images: 2, Run: 1}}
	if sum, err = Summarize(images); err != nil {
		t.Fatal(err)
	}
	if got, _ := sum.Get("images_per_second"); math.Abs(got-(2+0.5)/2) > 1e-12 {
		t.Errorf("images_per_second = %v, want 1.25", got)
	}
}

// IsRunMean names exactly the figures Summarize defines as means over runs, for every workload
// shape (audio, images).
func TestIsRunMeanNamesTheMeansOverRuns(t *testing.T) {
	for _, samples := range [][]Sample{
		{{ClientMS: 10, TaskMS: 5, StartNS: 0, EndNS: 1e9, AudioSeconds: 2}, {ClientMS: 10, TaskMS: 5, StartNS: 5e9, EndNS: 7e9, AudioSeconds: 1, Run: 1}},
		{{ClientMS: 10, TaskMS: 5, StartNS: 0, EndNS: 1e9, Images: 1}, {ClientMS: 10, TaskMS: 5, StartNS: 5e9, EndNS: 7e9, Images: 1, Run: 1}},
	} {
		sum, err := Summarize(samples)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sum.Figures {
			if mean := strings.HasPrefix(f.Formula, "mean over AIPerf runs of"); mean != IsRunMean(f.Name) {
				t.Errorf("%s: formula %q, IsRunMean %v", f.Name, f.Formula, IsRunMean(f.Name))
			}
		}
	}
}
