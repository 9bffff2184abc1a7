package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A target file of an unknown kind is refused when read, naming the known kinds, so no code
// downstream meets a kind it has no steps for.
func TestReadRefusesAnUnknownKind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	body := "name: x\nkind: trtmc-nightly\nmanifests: [a]\nbuild: [b]\ngate: [g]\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `kind "trtmc-nightly" is not one of [reference trtmc]`) {
		t.Fatalf("unknown kind: %v", err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(body, "trtmc-nightly", "trtmc", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := Read(path, t.TempDir())
	if err != nil || !tg.Kind.InCheckout() || tg.Kind.Embedded() {
		t.Fatalf("kind trtmc: %+v, %v", tg, err)
	}
}
