package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
)

// plannedRun publishes a run whose only stage is planned: evidence qual verify accepts as is.
func plannedRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	stage := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "t2i", Number: 6, Status: "planned", Reason: "signing test",
		Results:   []evidence.Result{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned, Statement: "signing test"}},
		Inventory: []inventory.Row{{Profile: "p", Kind: string(evidence.KindFull), Counted: true, Status: string(evidence.StatusPlanned)}}}
	if err := evidence.WriteJSON(filepath.Join(dir, "t2i", "stage.json"), stage); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Assemble(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(t *testing.T, cmd command, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := cmd(context.Background(), args, &out)
	return out.String(), err
}

var fingerprintRE = regexp.MustCompile(`[0-9a-f]{64}`)

func TestKeygenSignVerifyPinned(t *testing.T) {
	key := filepath.Join(t.TempDir(), "ci-key")
	out, err := run(t, runKeygen, "-o", key)
	if err != nil {
		t.Fatal(err)
	}
	fp := fingerprintRE.FindString(out)
	if info, err := os.Stat(key); err != nil || info.Mode().Perm() != 0o600 || fp == "" {
		t.Fatalf("keygen: %q, private key %v %v", out, info, err)
	}
	if _, err := run(t, runKeygen, "-o", key); err == nil || !strings.Contains(err.Error(), "not overwriting") {
		t.Fatalf("keygen over an existing key: %v", err)
	}
	dir := plannedRun(t)
	if out, err = run(t, runSign, "--key-file", key, dir); err != nil || !strings.Contains(out, fp) {
		t.Fatalf("sign: %q %v", out, err)
	}
	out, err = run(t, runVerify, "--key", key+".pub", dir)
	if err != nil || !strings.Contains(out, "signed by key "+fp+", pinned") {
		t.Fatalf("verify --key: %q %v", out, err)
	}
	os.WriteFile(filepath.Join(dir, "t2i", "notes.txt"), []byte("added later"), 0o644)
	out, err = run(t, runVerify, "--key", key+".pub", dir)
	if err == nil || !strings.Contains(out, "MISMATCH t2i/notes.txt: added after signing") {
		t.Fatalf("verify after adding a file: %q %v", out, err)
	}
}

// TestLocalKeyIsCreatedOnceAndReused is `make qualify` without a key: the first sign creates a
// pair under QUAL_CACHE and prints its fingerprint, the next reuses it, and verify without --key
// says the key was not pinned.
func TestLocalKeyIsCreatedOnceAndReused(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("QUAL_CACHE", cache)
	t.Setenv("QUAL_SIGNING_KEY", "")
	first, err := run(t, runSign, plannedRun(t))
	if err != nil || !strings.Contains(first, "created a local signing key "+filepath.Join(cache, "signing", "qual-ed25519")) {
		t.Fatalf("first sign: %q %v", first, err)
	}
	fp := fingerprintRE.FindString(first)
	dir := plannedRun(t)
	second, err := run(t, runSign, dir)
	if err != nil || strings.Contains(second, "created") || !strings.Contains(second, "with key "+fp) {
		t.Fatalf("second sign (fingerprint %s): %q %v", fp, second, err)
	}
	out, err := run(t, runVerify, dir)
	if err != nil || !strings.Contains(out, "signed by key "+fp+", not pinned") {
		t.Fatalf("verify without --key: %q %v", out, err)
	}
}

func TestSigningKeyFromEnvironment(t *testing.T) {
	priv, pub, err := attest.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	fp, _ := attest.Fingerprint(pub)
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", string(priv))
	dir := plannedRun(t)
	if out, err := run(t, runSign, dir); err != nil || !strings.Contains(out, fp+" (QUAL_SIGNING_KEY)") {
		t.Fatalf("sign with QUAL_SIGNING_KEY: %q %v", out, err)
	}
	t.Setenv("QUAL_SIGNING_KEY", "/path/to/key.pem")
	if _, err := run(t, runSign, dir); err == nil || !strings.Contains(err.Error(), "not a path") {
		t.Fatalf("QUAL_SIGNING_KEY holding a path: %v", err)
	}
}

func TestUnsignedRunFailsVerify(t *testing.T) {
	out, err := run(t, runVerify, plannedRun(t))
	if err == nil || !strings.Contains(out, "MISMATCH "+attest.PublicKeyFile+": run is not signed") {
		t.Fatalf("verify of an unsigned run: %q %v", out, err)
	}
}
