package whisper

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "embed"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/family/familytest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

//go:embed bench.py
var benchScript []byte

// BenchmarkWhisper reports, per profile and for 1 and 2 concurrent callers, audio-seconds per
// second, RTF, load time and peak RSS per worker for the native Task (one warm worker per
// caller), and the same figures for faster-whisper called directly in Python (bench.py: one
// process per caller, same model files and settings) in the same run. RTF/direct is the
// native RTF over the direct one (goal < 1.05; on a shared machine it carries the load's noise
// between the two runs); protocol-% is measured on the same calls: the share of each round
// trip not spent inside the worker's transcribe().
func BenchmarkWhisper(b *testing.B) {
	for _, profile := range profiles {
		bnd, m := familytest.Build(b, Family{}, profile)
		mat, clips := clipsOf(b, m)
		audioSeconds := 0.0
		for _, c := range clips {
			audioSeconds += c.Seconds()
		}
		for _, callers := range []int{1, 2} {
			var directRTF float64
			b.Run(profile+"/callers="+strconv.Itoa(callers)+"/direct", func(b *testing.B) {
				directRTF = benchDirect(b, bnd, mat, callers)
			})
			b.Run(profile+"/callers="+strconv.Itoa(callers)+"/native", func(b *testing.B) {
				start := time.Now()
				mdl, tr := load(b, bnd, callers)
				loadS := time.Since(start).Seconds()
				for range callers { // the direct run warms up too
					tr.Transcribe(context.Background(), clips[0], task.TranscribeConfig{})
				}
				before := mdl.CallTimes()
				b.ResetTimer()
				for b.Loop() {
					var wg sync.WaitGroup
					for range callers {
						wg.Go(func() {
							for _, c := range clips {
								if _, err := tr.Transcribe(context.Background(), c, task.TranscribeConfig{}); err != nil {
									b.Error(err)
								}
							}
						})
					}
					wg.Wait()
				}
				wall := b.Elapsed().Seconds() / float64(b.N)
				rtf := wall / (float64(callers) * audioSeconds)
				b.ReportMetric(float64(callers)*audioSeconds/wall, "audio-s/s")
				b.ReportMetric(rtf, "RTF")
				b.ReportMetric(workerPeakRSS(mdl), "worker-peak-RSS-MiB")
				b.ReportMetric(loadS, "load-s") // after the loop: ResetTimer drops earlier metrics
				after := mdl.CallTimes()
				rt, in := after.RoundTripMS-before.RoundTripMS, after.InWorkerMS-before.InWorkerMS
				b.ReportMetric(100*(rt-in)/rt, "protocol-%") // round trip not spent in transcribe(), same calls
				if directRTF > 0 {
					b.ReportMetric(rtf/directRTF, "RTF/direct")
				}
			})
		}
	}
}

// benchDirect runs bench.py in `callers` processes at once for b.N rounds each and reports its
// figures; it returns the RTF.
func benchDirect(b *testing.B, bnd *bundle.Bundle, clips []dataset.Materialized, callers int) float64 {
	py, err := Python(family.Host{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	s, err := ExtractModel(bnd, filepath.Join(dir, "model"))
	if err != nil {
		b.Fatal(err)
	}
	script := filepath.Join(dir, "bench.py")
	if err := writeScripts(dir, map[string][]byte{"bench.py": benchScript}); err != nil {
		b.Fatal(err)
	}
	opts, _ := json.Marshal(optionsOf(s))
	args := []string{script, filepath.Join(dir, "model"), string(opts), strconv.Itoa(b.N)}
	for _, c := range clips {
		args = append(args, c.Path)
	}
	type figures struct {
		LoadS, WallS, AudioS, PeakRSSMiB float64
	}
	results := make([]figures, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			cmd := exec.Command(py, args...)
			cmd.Env = processEnv(s)
			out, err := cmd.Output()
			if err != nil {
				b.Errorf("bench.py: %v%s", err, stderrOf(err))
				return
			}
			var raw map[string]float64
			if err := json.Unmarshal(out, &raw); err != nil {
				b.Errorf("bench.py output %q: %v", out, err)
			}
			results[i] = figures{raw["load_s"], raw["wall_s"], raw["audio_s"], raw["peak_rss_mib"]}
		})
	}
	wg.Wait()
	var wall, audioS, load, rss float64
	for _, r := range results {
		wall, load, rss = max(wall, r.WallS), max(load, r.LoadS), max(rss, r.PeakRSSMiB)
		audioS += r.AudioS
	}
	rtf := wall / audioS
	b.ReportMetric(audioS/wall, "audio-s/s")
	b.ReportMetric(rtf, "RTF")
	b.ReportMetric(load, "load-s")
	b.ReportMetric(rss, "peak-RSS-MiB")
	return rtf
}

// workerPeakRSS is the largest VmHWM among the model's worker processes, in MiB.
func workerPeakRSS(m *model) float64 {
	peak := 0.0
	for _, pid := range m.WorkerPIDs() {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				peak = max(peak, kb/1024)
			}
		}
	}
	return peak
}
