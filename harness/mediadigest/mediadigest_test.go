package mediadigest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
)

func noise(w, h int, seed uint64) *image.NRGBA {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(rng.IntN(256)), uint8((x * 255) / max(1, w-1)), uint8(rng.IntN(256)), 255})
		}
	}
	return img
}

// TestThumbnailMatchesPillow runs Pillow's own Image.resize((64, 64), BILINEAR) (what TRTMC's
// digests.py calls) on seeded PNGs of shrinking, growing and odd sizes and requires every value
// equal. A missing parity Python is a failure: the claim "PIL to the last bit" needs it.
func TestThumbnailMatchesPillow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the Pillow parity run (make test runs it)")
	}
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sizes := [][2]int{{256, 256}, {128, 128}, {64, 64}, {100, 37}, {32, 48}, {1024, 512}, {65, 63}}
	var files []string
	want := map[string][]int{}
	for i, s := range sizes {
		img := noise(s[0], s[1], uint64(i+1))
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, strings.ReplaceAll(filepath.Base(t.Name()), "/", "_")+"-"+string(rune('a'+i))+".png")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		want[p] = Thumbnail(img)
	}
	script := `import json, sys
import numpy as np
from PIL import Image
out = {}
for p in sys.argv[1:]:
    with Image.open(p) as im:
        a = np.asarray(im.convert("RGB"))
    t = Image.fromarray(a).resize((64, 64), Image.BILINEAR)
    out[p] = np.asarray(t, dtype=np.uint8).flatten().tolist()
print(json.dumps(out))`
	out, err := exec.Command(py, append([]string{"-c", script}, files...)...).Output()
	if err != nil {
		t.Fatalf("Pillow: %v", err)
	}
	var got map[string][]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for i, p := range files {
		pil := got[p]
		if len(pil) != len(want[p]) {
			t.Fatalf("%v: Pillow gave %d values, we %d", sizes[i], len(pil), len(want[p]))
		}
		for j := range pil {
			if pil[j] != want[p][j] {
				t.Fatalf("%v: value %d: Pillow %d, ours %d", sizes[i], j, pil[j], want[p][j])
			}
		}
	}
}

func TestDigestCheckCatchesEachDifference(t *testing.T) {
	img := noise(256, 256, 7)
	good := Digest{Frames: 1, Height: 256, Width: 256, SampledFrames: []int{0}, ThumbnailSize: 64, Thumbnails: [][]int{Thumbnail(img)}}
	if err := good.Check(img); err != nil {
		t.Fatalf("the image's own digest: %v", err)
	}
	edits := map[string]func(*Digest){
		"frames":    func(d *Digest) { d.Frames = 2 },
		"size":      func(d *Digest) { d.Width = 128 },
		"thumbsize": func(d *Digest) { d.ThumbnailSize = 32 },
		"value":     func(d *Digest) { d.Thumbnails = [][]int{append([]int{d.Thumbnails[0][0] ^ 1}, d.Thumbnails[0][1:]...)} },
		"other":     func(d *Digest) { d.Thumbnails = [][]int{Thumbnail(noise(256, 256, 8))} },
		"none":      func(d *Digest) { d.Thumbnails = nil },
	}
	for name, edit := range edits {
		d := good
		d.Thumbnails = [][]int{append([]int(nil), good.Thumbnails[0]...)}
		edit(&d)
		if err := d.Check(img); err == nil {
			t.Errorf("%s: an edited digest passed", name)
		}
	}
}
