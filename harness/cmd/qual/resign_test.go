package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
)

// TestSigningASignedRun: signing a run whose signature verifies changes nothing and says so
// (exit 0); signing one whose files changed after signing — any file changed, added or removed —
// is refused (exit 2, naming that file and its digests, the envelope left as it was) unless
// --resign, which names what changed and signs the run as it now is, so that its signature
// verifies.
func TestSigningASignedRun(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	changes := map[string]struct {
		file, says string
		change     func(dir string) error
	}{
		"a report edited": {"qualification.md", "changed after signing (sha256 ", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "qualification.md"), []byte("**Verdict: QUALIFIED**\n"), 0o644)
		}},
		"a stage's evidence edited": {"t2i/stage.json", "changed after signing (sha256 ", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "t2i", "stage.json"), []byte("{}\n"), 0o644)
		}},
		"a file added": {"t2i/notes.txt", "added after signing", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "t2i", "notes.txt"), []byte("later"), 0o644)
		}},
		"a file removed": {"report.html", "removed after signing (signed sha256 ", func(dir string) error {
			return os.Remove(filepath.Join(dir, "report.html"))
		}},
	}
	for name, c := range changes {
		t.Run(name, func(t *testing.T) {
			dir := plannedRun(t)
			if code, _, errOut := qualRun(t, "sign", dir); code != exitOK {
				t.Fatalf("first sign: exit %d %s", code, errOut)
			}
			envelope := filepath.Join(dir, attest.EnvelopeFile)
			signed, _ := os.ReadFile(envelope)
			code, out, errOut := qualRun(t, "sign", dir)
			if code != exitOK || !strings.Contains(out, "is already signed") || !strings.Contains(out, "signature verifies: nothing to sign") {
				t.Errorf("signing a verifying run: exit %d %q %q", code, out, errOut)
			}
			if now, _ := os.ReadFile(envelope); !bytes.Equal(now, signed) {
				t.Error("signing a verifying run rewrote its envelope")
			}
			if err := c.change(dir); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = qualRun(t, "sign", dir)
			if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "signature no longer verifies: "+c.file+": "+c.says) ||
				!strings.Contains(errOut, "qual sign --resign "+dir) {
				t.Errorf("signing after %s: exit %d, stdout %q, stderr %q", name, code, out, errOut)
			}
			if now, _ := os.ReadFile(envelope); !bytes.Equal(now, signed) {
				t.Error("a refused sign rewrote the envelope")
			}
			code, out, errOut = qualRun(t, "sign", "--resign", dir)
			if code != exitOK || !strings.Contains(out, "re-signing "+dir+", changed after it was signed: "+c.file+": "+c.says) {
				t.Errorf("--resign after %s: exit %d %q %q", name, code, out, errOut)
			}
			// Its signature now covers the files as they are (qual verify's other checks still
			// re-derive them, and refuse an edited report: signing vouches, it does not repair).
			if rep, err := attest.Verify(context.Background(), dir, nil); err != nil || len(rep.Problems) > 0 {
				t.Errorf("the re-signed run's signature does not verify: %v %v", rep.Problems, err)
			}
		})
	}
}
