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

// TestSigningASignedRunWithANamedKey: a key the caller names (--key-file, --key or
// QUAL_SIGNING_KEY) on a run whose signature verifies: the key it was signed with changes
// nothing (exit 0); any other key is refused (exit 2, naming both keys, the envelope left as it
// was), since "nothing to sign" would leave a signature a verify pinned to the named key
// refuses; with --resign the run is signed by the named key and verifies pinned to it. Without a
// named key the local pair does not displace a verifying signature.
func TestSigningASignedRunWithANamedKey(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	keys := t.TempDir()
	pem := map[string][]byte{}
	for _, name := range []string{"first", "second"} {
		p := filepath.Join(keys, name)
		if code, _, errOut := qualRun(t, "keygen", "-o", p); code != exitOK {
			t.Fatalf("keygen: %s", errOut)
		}
		pem[name], _ = os.ReadFile(p)
	}
	names := map[string]func(key string) []string{
		"--key-file": func(key string) []string { return []string{"--key-file", filepath.Join(keys, key)} },
		"--key":      func(key string) []string { return []string{"--key", filepath.Join(keys, key)} },
		"QUAL_SIGNING_KEY": func(key string) []string {
			t.Setenv("QUAL_SIGNING_KEY", string(pem[key]))
			return nil
		},
	}
	for how, named := range names {
		t.Run(how, func(t *testing.T) {
			t.Setenv("QUAL_SIGNING_KEY", "")
			dir := plannedRun(t)
			sign := func(key string, extra ...string) (int, string, string) {
				t.Helper()
				args := append(append([]string{"sign"}, extra...), named(key)...)
				code, out, errOut := qualRun(t, append(args, dir)...)
				t.Setenv("QUAL_SIGNING_KEY", "")
				return code, out, errOut
			}
			if code, _, errOut := sign("first"); code != exitOK {
				t.Fatalf("first sign: exit %d %s", code, errOut)
			}
			envelope := filepath.Join(dir, attest.EnvelopeFile)
			signed, _ := os.ReadFile(envelope)
			if code, out, errOut := sign("first"); code != exitOK || !strings.Contains(out, "nothing to sign") {
				t.Errorf("the key it was signed with: exit %d %q %q", code, out, errOut)
			}
			if code, out, errOut := qualRun(t, "sign", dir); code != exitOK || !strings.Contains(out, "nothing to sign") {
				t.Errorf("no key named (the local pair): exit %d %q %q", code, out, errOut)
			}
			code, out, errOut := sign("second")
			if code != exitUsage || out != "" || !strings.Contains(errOut, "not with the key given") || !strings.Contains(errOut, "--resign") {
				t.Errorf("another key: exit %d, stdout %q, stderr %q; want exit 2 naming --resign", code, out, errOut)
			}
			if now, _ := os.ReadFile(envelope); !bytes.Equal(now, signed) {
				t.Error("a refused sign rewrote the envelope")
			}
			if code, _, errOut := sign("second", "--resign"); code != exitOK {
				t.Fatalf("--resign with another key: exit %d %s", code, errOut)
			}
			pub, _ := os.ReadFile(filepath.Join(keys, "second.pub"))
			if rep, err := attest.Verify(context.Background(), dir, pub); err != nil || len(rep.Problems) > 0 {
				t.Errorf("re-signed with the second key, the run does not verify pinned to it: %v %v", rep.Problems, err)
			}
		})
	}
}
