package metrics

import (
	"fmt"
	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/disintegration/imaging"
)

// BenchmarkWERVersusSCLITE times one `sctk sclite` process (parse, align, report) on 10,000
// pairs against our Score on the same pairs, and reports the ratio. Run by bench.sh.
func BenchmarkWERVersusSCLITE(b *testing.B) {
	sctk, err := exec.LookPath("sctk")
	if err != nil {
		b.Fatalf("sctk not installed (run `make deps`): %v", err)
	}
	pairs := benchPairs(10000)
	dir := b.TempDir()
	var ref, hyp strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&ref, "%s (%s)\n", p.Expected, p.ID)
		fmt.Fprintf(&hyp, "%s (%s)\n", p.Hyp, p.ID)
	}
	refPath, hypPath := filepath.Join(dir, "ref.trn"), filepath.Join(dir, "hyp.trn")
	if err := os.WriteFile(refPath, []byte(ref.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(hypPath, []byte(hyp.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	var theirs, ours time.Duration
	for b.Loop() {
		start := time.Now()
		if out, err := exec.Command(sctk, "sclite", "-r", refPath, "trn", "-h", hypPath, "trn", "-i", "rm", "-o", "sum", "stdout").CombinedOutput(); err != nil {
			b.Fatalf("sclite: %v\n%s", err, out)
		}
		theirs += time.Since(start)
		start = time.Now()
		Score(pairs, Identity(), SCLITECosts())
		ours += time.Since(start)
	}
	b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "ours-ms/op")
	b.ReportMetric(float64(theirs.Milliseconds())/float64(b.N), "sclite-ms/op")
	b.ReportMetric(float64(theirs)/float64(ours), "sclite/ours")
}

// BenchmarkSSIMVersusScikitImage times scikit-image's SSIM in-process on a 1024×1024 RGB pair
// against ours on the same PNGs, and reports the ratio. Run by bench.sh.
func BenchmarkSSIMVersusScikitImage(b *testing.B) {
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dir := b.TempDir()
	aImg := noiseImage(rng, 1024, 1024)
	bImg := addNoise(rng, aImg, 20)
	aPath, bPath := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	if err := imaging.Save(aImg, aPath); err != nil {
		b.Fatal(err)
	}
	if err := imaging.Save(bImg, bPath); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command(py, "testdata/skimage_bench.py", aPath, bPath, "5").Output()
	if err != nil {
		b.Fatalf("scikit-image timing: %v", err)
	}
	theirs, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		b.Fatal(err)
	}
	x, y := FromImage(aImg), FromImage(bImg)
	b.ResetTimer()
	for b.Loop() {
		if _, err := SSIM(x, y); err != nil {
			b.Fatal(err)
		}
	}
	ours := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(ours*1000, "ours-ms/op")
	b.ReportMetric(theirs*1000, "skimage-ms/op")
	b.ReportMetric(theirs/ours, "skimage/ours")
}
