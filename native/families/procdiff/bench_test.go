package procdiff

import (
	"fmt"
	"sync"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// BenchmarkSecondsPerImage reports seconds per image for each profile at its pinned size and
// default steps, and how cost scales with steps and size (run by `make bench`).
func BenchmarkSecondsPerImage(b *testing.B) {
	cases := []struct {
		profile       string
		width, height int
		steps         int
	}{
		{"procdiff-small", 256, 256, 20}, {"procdiff-small", 256, 256, 10}, {"procdiff-small", 256, 256, 40},
		{"procdiff-small", 128, 128, 20}, {"procdiff-base", 512, 512, 30}, {"procdiff-base-fp16", 512, 512, 30},
		{"procdiff-small-l0", 128, 128, 4},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/%dx%d/steps=%d", c.profile, c.width, c.height, c.steps), func(b *testing.B) {
			_, _, mdl := loadProfile(b, c.profile)
			req := task.ImageRequest{Prompt: "a lighthouse on a rocky coast at dusk", Width: c.width, Height: c.height, Steps: c.steps, Guidance: 3.5, Seed: 1, Count: 1}
			b.ResetTimer()
			for b.Loop() {
				mdl.gen.generate(req, 0)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/image")
		})
	}
}

// BenchmarkImagesPerSecond is throughput at concurrency 1 and 2 on the base profile.
func BenchmarkImagesPerSecond(b *testing.B) {
	_, _, mdl := loadProfile(b, "procdiff-base")
	req := task.ImageRequest{Prompt: "a lighthouse on a rocky coast at dusk", Width: 512, Height: 512, Steps: 30, Guidance: 3.5, Seed: 1, Count: 1}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("concurrency=%d", workers), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() { mdl.gen.generate(req, w) })
				}
				wg.Wait()
			}
			b.ReportMetric(float64(workers*b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}
