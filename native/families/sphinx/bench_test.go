package sphinx

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// BenchmarkTranscribeEnUS reports audio-seconds per second and real-time factor for the
// sphinx-en-us pinned clips with 1 and 2 concurrent callers (goal: ≥ 1.8× scaling on 2 cores).
func BenchmarkTranscribeEnUS(b *testing.B) {
	bnd, m := buildProfile(b, "sphinx-en-us")
	clips := clipsOf(b, m)
	audioSeconds := 0.0
	for _, c := range clips {
		audioSeconds += c.Seconds()
	}
	for _, callers := range []int{1, 2} {
		b.Run("callers="+strconv.Itoa(callers), func(b *testing.B) {
			_, tr := loadTranscriber(b, bnd, callers)
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
			b.ReportMetric(float64(callers)*audioSeconds/wall, "audio-s/s")
			b.ReportMetric(wall/(float64(callers)*audioSeconds), "RTF")
			b.ReportMetric(peakRSSMiB(), "peak-RSS-MiB")
		})
	}
}

// BenchmarkLoadEnUS is bundle load time: extract the model and start one decoder.
func BenchmarkLoadEnUS(b *testing.B) {
	bnd, _ := buildProfile(b, "sphinx-en-us")
	b.ResetTimer()
	for b.Loop() {
		m, _ := loadTranscriber(b, bnd, 1)
		m.Close()
	}
}

// BenchmarkPocketsphinxContinuousCLI runs Debian's pocketsphinx_continuous once per clip (a new
// process that loads the model each time) on the same clips, for comparison.
func BenchmarkPocketsphinxContinuousCLI(b *testing.B) {
	tool, err := exec.LookPath("pocketsphinx_continuous")
	if err != nil {
		b.Fatalf("pocketsphinx_continuous not installed (run `make deps`): %v", err)
	}
	bnd, m := buildProfile(b, "sphinx-en-us")
	dir := b.TempDir()
	args, err := ExtractModel(bnd, filepath.Join(dir, "model"))
	if err != nil {
		b.Fatal(err)
	}
	set, err := dataset.ReadASR(filepath.Join(repoRoot(b), m.Testcases[0].Dataset))
	if err != nil {
		b.Fatal(err)
	}
	clips, err := set.Materialize(repoRoot(b), filepath.Join(dir, "clips"))
	if err != nil {
		b.Fatal(err)
	}
	audioSeconds := 0.0
	for _, c := range clips {
		audioSeconds += c.Duration
	}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		for _, c := range clips {
			cmd := exec.Command(tool, append(append([]string{"-infile", c.Path}, args...), "-logfn", os.DevNull)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	}
	wall := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(audioSeconds/wall, "audio-s/s")
	b.ReportMetric(wall/audioSeconds, "RTF")
}

// peakRSSMiB reads the process's high-water resident set size.
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}
