package task

import (
	"errors"
	"image"
	"image/color"
	"testing"
)

// Given values are never changed; only what was left out takes the family's defaults.
func TestFillImageDefaults(t *testing.T) {
	spec := ImageSpec{Sizes: [][2]int{{64, 48}, {32, 32}}, DefaultSteps: 8, DefaultGuide: 3.5}
	got := FillImageDefaults(spec, ImageRequest{Guidance: -1})
	if got.Width != 64 || got.Height != 48 || got.Steps != 8 || got.Guidance != 3.5 || got.Count != 1 {
		t.Errorf("defaults: %+v", got)
	}
	given := ImageRequest{Width: 32, Height: 32, Steps: 2, Guidance: 0, Count: 3}
	if got := FillImageDefaults(spec, given); got != given {
		t.Errorf("given values changed: %+v -> %+v", given, got)
	}
}

// The pixel hash is of the pixels: the same picture as NRGBA or as another image type hashes
// the same, and one changed pixel changes it.
func TestImageSHA256IsOfThePixels(t *testing.T) {
	n := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	r := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for y := range 2 {
		for x := range 3 {
			c := color.NRGBA{uint8(x * 40), uint8(y * 90), 7, 255}
			n.SetNRGBA(x, y, c)
			r.Set(x, y, c)
		}
	}
	if ImageSHA256(n) != ImageSHA256Of(r) || ImageSHA256Of(n) != ImageSHA256(n) {
		t.Errorf("same pixels, different hashes: %s %s", ImageSHA256(n), ImageSHA256Of(r))
	}
	before := ImageSHA256(n)
	n.SetNRGBA(2, 1, color.NRGBA{1, 2, 3, 255})
	if ImageSHA256(n) == before {
		t.Error("a changed pixel kept the hash")
	}
}

func TestErrorsKeepTheirCodes(t *testing.T) {
	var inv *InvalidInputError
	if err := Invalid("invalid_audio", "clip %d too short", 3); !errors.As(err, &inv) || inv.Code != "invalid_audio" || err.Error() != "clip 3 too short" {
		t.Errorf("%v", err)
	}
}
