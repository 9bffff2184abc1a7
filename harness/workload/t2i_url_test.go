package workload

import (
	"bytes"
	"encoding/base64"
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
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

func testPNG(t *testing.T, shade uint8) (image.Image, []byte) {
	img := image.NewNRGBA(image.Rect(0, 0, 96, 80))
	for y := 0; y < 80; y++ {
		for x := 0; x < 96; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 2), shade, uint8(y * 3), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return img, buf.Bytes()
}

// urlPair is a TRTMC image answer: {"data": [{"url": "file://<artifact>"}]} and a record whose
// observation holds the artifact and its media_digest.
func urlPair(url, artifact string, digest *mediadigest.Digest) join.Pair {
	var p join.Pair
	p.ID = "r1"
	body, _ := json.Marshal(contract.ImagesResponse{Data: []contract.ImageData{{URL: url}}})
	p.Client.Responses = append(p.Client.Responses, struct {
		Text        string `json:"text"`
		ContentType string `json:"content_type"`
	}{Text: string(body)})
	p.Server = contract.Record{RequestID: "r1", Status: 200, Output: &contract.RecordOutput{Images: []contract.RecordImage{
		{Width: digest.Width, Height: digest.Height, Artifact: artifact, Digest: digest}}}}
	return p
}

// A file:// answer is read from the kept scratch directory and checked against the record's
// artifact path and media digest; each way it can disagree is caught.
func TestT2IReadsKeptArtifactsAndChecksTheirDigest(t *testing.T) {
	dir := t.TempDir()
	img, raw := testPNG(t, 40)
	other, otherRaw := testPNG(t, 41)
	os.MkdirAll(filepath.Join(dir, "req-1"), 0o755)
	os.WriteFile(filepath.Join(dir, "req-1", "output.png"), raw, 0o644)
	os.WriteFile(filepath.Join(dir, "req-1", "other.png"), otherRaw, 0o644)
	digestOf := func(im image.Image) *mediadigest.Digest {
		return &mediadigest.Digest{Frames: 1, Width: 96, Height: 80, SampledFrames: []int{0}, ThumbnailSize: 64, Thumbnails: [][]int{mediadigest.Thumbnail(im)}}
	}
	w0, _ := Get("t2i")
	w := WithArtifacts(w0, ScratchReader("/scratch", dir))
	const url, art = "file:///scratch/req-1/output.png", "/scratch/req-1/output.png"
	got, err := w.HTTPOutput(urlPair(url, art, digestOf(img)))
	if err != nil || got != task.ImageSHA256Of(img) {
		t.Fatalf("kept artifact: %q %v", got, err)
	}
	bad := map[string]join.Pair{
		"url is not the record's artifact": urlPair("file:///scratch/req-1/other.png", art, digestOf(other)),
		"digest of another image":          urlPair(url, art, digestOf(other)),
		"artifact outside the scratch":     urlPair("file:///etc/passwd", "/etc/passwd", digestOf(img)),
		"path leaving the scratch":         urlPair("file:///scratch/../etc/passwd", "/scratch/../etc/passwd", digestOf(img)),
		"not a file URL":                   urlPair("http://x/y.png", "http://x/y.png", digestOf(img)),
		"artifact not kept":                urlPair("file:///scratch/req-2/output.png", "/scratch/req-2/output.png", digestOf(img)),
		"record without a digest (TRTMC's)": func() join.Pair {
			p := urlPair(url, art, digestOf(img))
			p.Server.Output.Images[0].Digest = nil
			return p
		}(),
	}
	for name, p := range bad {
		if _, err := w.HTTPOutput(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := w0.HTTPOutput(urlPair(url, art, digestOf(img))); err == nil || !strings.Contains(err.Error(), "scratch") {
		t.Errorf("without a scratch directory a URL answer must fail saying so: %v", err)
	}
	// An inline answer is held to the pixel hash, whatever digest a record carries.
	var p join.Pair
	body, _ := json.Marshal(contract.ImagesResponse{Data: []contract.ImageData{{B64JSON: base64.StdEncoding.EncodeToString(raw)}}})
	p.Client.Responses = urlPair(url, art, digestOf(img)).Client.Responses
	p.Client.Responses[0].Text = string(body)
	p.Server = contract.Record{Status: 200, Output: &contract.RecordOutput{Images: []contract.RecordImage{{Width: 96, Height: 80, Digest: digestOf(img)}}}}
	if _, err := w.HTTPOutput(p); err == nil {
		t.Error("an inline image was accepted on a record holding a digest instead of its pixel sha256")
	}
}
