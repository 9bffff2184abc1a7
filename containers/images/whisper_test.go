package images

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pinned wheel the wheelhouse does not hold (the weights wheel, not part of the image) is
// passed over; a present wheel must match its pin; the two runtime wheels must be there.
func TestCheckWheelPins(t *testing.T) {
	dir := t.TempDir()
	pin := func(name, content string) string {
		if content != "" {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sum := sha256.Sum256([]byte(content))
		return hex.EncodeToString(sum[:]) + "  " + name + "\n"
	}
	pins := pin("faster_whisper-1.whl", "fw") + pin("ctranslate2-4.whl", "ct2")
	absent := pin("weights-0.1.whl", "") // pinned, not downloaded
	pinsPath := filepath.Join(t.TempDir(), "wheels.sha256")
	if err := os.WriteFile(pinsPath, []byte(pins+absent), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkWheelPins(dir, pinsPath); err != nil {
		t.Fatalf("a pinned wheel that is absent must be passed over: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ctranslate2-4.whl"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkWheelPins(dir, pinsPath); err == nil || !strings.Contains(err.Error(), "refusing to build") {
		t.Fatalf("a wheel that differs from its pin: %v", err)
	}
}
