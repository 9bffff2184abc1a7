package workload

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/mediadigest"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// trtmcImagePair is a request as TRTMC's app and --serve worker answer it: {"data": [{"url": ""}]}
// (app.py @1797a247 _artifact_url finds no artifact or path) and a record whose observation names
// the worker's PNG in image_artifacts, with the app's media_digest (benchmark_worker.cpp @ca938e40
// run_generate_image; digests.py @7d4725ab).
func trtmcImagePair(t *testing.T, id string, img image.Image, artifacts []string) join.Pair {
	t.Helper()
	d := mediadigest.Digest{Frames: 1, Width: img.Bounds().Dx(), Height: img.Bounds().Dy(), SampledFrames: []int{0}, ThumbnailSize: 64,
		Thumbnails: [][]int{mediadigest.Thumbnail(img)}}
	obs := map[string]any{"generated_images": 1, "batch_size": 1, "height": d.Height, "width": d.Width, "channels": 3, "num_frames": 1,
		"media_type": "image", "image_artifacts": artifacts, "media_digest": d}
	line, _ := json.Marshal(map[string]any{"request_id": id, "route": "/v1/images/generations", "operation": "generate_image",
		"backend": "trtmc", "time": 1.5, "timing": map[string]float64{"queue_ms": 0.1, "model_call_ms": 40, "handler_ms": 42}, "observation": obs})
	rec, err := contract.ParseRecord(line)
	if err != nil {
		t.Fatal(err)
	}
	var p join.Pair
	p.ID, p.Server = id, rec
	body := `{"created": 1, "data": [{"url": ""}], "inference_time_s": 0.04, "trtmc_timing": {"queue_ms": 0.1, "model_call_ms": 40, "handler_ms": 42}, "trtmc_observation": {}}`
	p.Client.Responses = append(p.Client.Responses, struct {
		Text        string `json:"text"`
		ContentType string `json:"content_type"`
	}{Text: body})
	return p
}

// An empty url is answered from the worker's image_artifacts under the request's kept scratch
// directory; a record that names no worker file is an error naming the worker.
func TestT2IReadsTheWorkersImageArtifactWhenTheURLIsEmpty(t *testing.T) {
	dir := t.TempDir()
	img, raw := testPNG(t, 40)
	os.MkdirAll(filepath.Join(dir, "req-5"), 0o755)
	os.WriteFile(filepath.Join(dir, "req-5", "output.image.1.0.png"), raw, 0o644)
	w0, _ := Get("t2i")
	w := WithArtifacts(w0, ScratchReader("/scratch", dir))
	got, err := w.HTTPOutput(trtmcImagePair(t, "req-5", img, []string{"output.image.1.0.png"}))
	if err != nil || got != task.ImageSHA256Of(img) {
		t.Fatalf("worker artifact: %q %v", got, err)
	}
	if _, err := w.HTTPOutput(trtmcImagePair(t, "req-5", img, nil)); err == nil || !strings.Contains(err.Error(), "trtmc_benchmark_worker") {
		t.Errorf("no artifact anywhere must be an error naming the worker: %v", err)
	}
	if _, err := w.HTTPOutput(trtmcImagePair(t, "req-5", img, []string{"../req-6/output.image.1.0.png"})); err == nil {
		t.Error("a worker file name leaving the request's directory was read")
	}
}

// shadedPair is a served image of about one gray level (level/255 on [0,1]), kept as the
// worker's file in a scratch directory of its own.
func shadedPair(t *testing.T, level uint8) pairInDir {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := 0; i < 64; i++ {
		v := level + uint8(i%2)*8 // some spread: std > 0
		img.SetNRGBA(i%8, i/8, color.NRGBA{v, v, v, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "r"), 0o755)
	os.WriteFile(filepath.Join(dir, "r", "output.image.1.0.png"), buf.Bytes(), 0o644)
	return pairInDir{trtmcImagePair(t, "r", img, []string{"output.image.1.0.png"}), dir}
}

// TRTMC's threshold names are read (contract_ first, as its family tests do), on the [0,1] scale.
func TestImageMeaningReadsTRTMCsThresholdNames(t *testing.T) {
	w0, _ := Get("t2i")
	dark := shadedPair(t, 10)
	for name, c := range map[string]struct {
		overrides map[string]float64
		fails     bool
	}{
		"TRTMC's names, a dark image": {map[string]float64{"min_pixel_mean": 0.15, "max_pixel_mean": 0.85, "min_pixel_std": 0.0}, true},
		"TRTMC's names, bounds met":   {map[string]float64{"min_pixel_mean": 0.01, "max_pixel_mean": 0.85, "min_pixel_std": 0.0}, false},
		"contract_ name first":        {map[string]float64{"contract_min_pixel_mean": 0.01, "min_pixel_mean": 0.9, "max_pixel_mean": 0.85, "min_pixel_std": 0}, false},
	} {
		w := WithArtifacts(w0, ScratchReader("/scratch", dark.dir))
		m, err := w.Meaning(manifest.Thresholds{Overrides: c.overrides, Path: "t.json"}, nil, []join.Pair{dark.Pair})
		if err != nil || (len(m.Failures) > 0) != c.fails {
			t.Errorf("%s: %+v %v", name, m, err)
		}
	}
}

// Without a thresholds file (most of TRTMC's image testcases) the meaning step records that no
// bound is declared, still decodes every image, and does not fail.
func TestImageMeaningWithoutThresholdsRecordsNoBound(t *testing.T) {
	w0, _ := Get("t2i")
	dark := shadedPair(t, 10)
	w := WithArtifacts(w0, ScratchReader("/scratch", dark.dir))
	m, err := w.Meaning(manifest.Thresholds{Path: "families/x/tests/thresholds/case.json"}, nil, []join.Pair{dark.Pair})
	if err != nil || len(m.Failures) > 0 || !strings.Contains(m.Rule, "no bound declared") || !strings.Contains(m.Rule, "no thresholds file") {
		t.Fatalf("%+v %v", m, err)
	}
	broken := dark.Pair
	broken.ID = "missing"
	broken.Server.RequestID = "missing"
	if m, _ := w.Meaning(manifest.Thresholds{Path: "x.json"}, nil, []join.Pair{broken}); len(m.Failures) == 0 {
		t.Error("an image that cannot be read passed without bounds")
	}
}

// Stage 9's audit says why TRTMC's app could not carry the request either.
func TestAudioQABlockedReasonNamesTheAppsRefusalOfAudioParts(t *testing.T) {
	w, _ := Get("audioqa")
	why := MayBeBlocked(w)
	for _, want := range []string{"input_audio", "openai.py @db5a3def", "image_url"} {
		if !strings.Contains(why, want) {
			t.Errorf("reason %q lacks %q", why, want)
		}
	}
}

type pairInDir struct {
	join.Pair
	dir string
}
