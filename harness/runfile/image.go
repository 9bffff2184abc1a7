package runfile

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
)

// MaxPixels bounds an image decoded from a run: 2048×2048, four times a 1024×1024 generation.
// Decoded and turned into the metrics' float planes, an image costs about 36 bytes a pixel, so
// the cap keeps one image near 150 MiB; a PNG declares its size in a few header bytes and can
// compress gigabytes of pixels into megabytes.
const MaxPixels = 2048 * 2048

// DecodePNG decodes PNG bytes after checking the size they declare.
func DecodePNG(data []byte) (image.Image, error) {
	if _, err := pngConfig(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode png: %w", err)
	}
	return img, nil
}

// pngConfig reads a PNG's header and refuses a size over MaxPixels.
func pngConfig(r io.Reader) (image.Config, error) {
	cfg, err := png.DecodeConfig(r)
	if err != nil {
		return cfg, fmt.Errorf("not a PNG: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return cfg, fmt.Errorf("PNG declares %d×%d pixels, over the %d-pixel cap (2048×2048)", cfg.Width, cfg.Height, MaxPixels)
	}
	return cfg, nil
}
