package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// plannedRun publishes a run whose only stage is planned, as a TRTMC target records it on a machine
// without its GPU stack: evidence qual verify accepts as is.
func plannedRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	stage := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "t2i", Number: 6, TargetKind: string(target.TRTMC), Status: "planned", Reason: "signing test",
		Results:   []evidence.Result{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned, Statement: "signing test"}},
		Inventory: []evidence.InventoryRow{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned}}}
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
	if out, err = run(t, runSign, "--key", key, dir); err != nil || !strings.Contains(out, fp) {
		t.Fatalf("sign: %q %v", out, err)
	}
	out, err = run(t, runVerify, "--key", key+".pub", dir)
	if err != nil || !strings.HasPrefix(out, "VERIFIED "+dir+": verdict NOT QUALIFIED; signature with the pinned key "+fp+"\n") {
		t.Fatalf("verify --key: %q %v", out, err)
	}
	os.WriteFile(filepath.Join(dir, "t2i", "notes.txt"), []byte("added later"), 0o644)
	out, err = run(t, runVerify, "--key", key+".pub", dir)
	if err == nil || !strings.HasPrefix(out, "REFUSED "+dir+": 1 mismatch;") || !strings.Contains(out, "\nMISMATCH t2i/notes.txt: added after signing") {
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
	out, err := run(t, runVerify, "-v", "--require-key", dir)
	if err != nil || !strings.Contains(out, "pinned to this machine's local signing key") || !strings.Contains(out, "signed by key "+fp+", pinned") ||
		firstLine(out) != "VERIFIED "+dir+": verdict NOT QUALIFIED; signature with the pinned key "+fp {
		t.Fatalf("verify without --key of a run this machine signed: %q %v", out, err)
	}
	if short, _ := run(t, runVerify, "--require-key", dir); strings.Contains(short, "signed by key") || firstLine(short) != firstLine(out) {
		t.Errorf("without -v the details stay behind -v, the result first:\n%s", short)
	}
}

// firstLine is verify's result line.
func firstLine(out string) string {
	line, _, _ := strings.Cut(out, "\n")
	return line
}

// TestUnpinnedMeansUnpinned signs with a key this machine does not hold: verify checks the
// files against the recorded key and says that is all it established; --require-key fails.
func TestUnpinnedMeansUnpinned(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	priv, _, err := attest.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("QUAL_SIGNING_KEY", string(priv))
	dir := plannedRun(t)
	if _, err := run(t, runSign, dir); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, runVerify, dir)
	if err != nil || !strings.HasPrefix(firstLine(out), "UNPINNED "+dir+": verdict NOT QUALIFIED; integrity of the files only") {
		t.Fatalf("unpinned verify: %q %v", out, err)
	}
	out, err = run(t, runVerify, "--require-key", dir)
	if err == nil || !strings.Contains(err.Error(), "--require-key") || !strings.HasPrefix(firstLine(out), "UNPINNED") {
		t.Fatalf("unpinned verify --require-key: %q %v", out, err)
	}
	// a run named through a link (reports/latest) is the run it points to
	latest := filepath.Join(t.TempDir(), "latest")
	if err := os.Symlink(dir, latest); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, runVerify, latest); err != nil || !strings.HasPrefix(firstLine(out), "UNPINNED") {
		t.Fatalf("verify through a link: %q %v", out, err)
	}
}

// TestVerifyExitCodes: 0 verified, 1 a check failed, 2 a usage error.
func TestVerifyExitCodes(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	dir := plannedRun(t)
	if _, err := run(t, runSign, dir); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if code := runQual(context.Background(), []string{"verify", dir}, &out, &errOut); code != 0 {
		t.Fatalf("verified run: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	os.WriteFile(filepath.Join(dir, "report.html"), []byte("<p>QUALIFIED</p>"), 0o644)
	out.Reset()
	if code := runQual(context.Background(), []string{"verify", dir}, &out, &errOut); code != 1 || !strings.HasPrefix(firstLine(out.String()), "REFUSED "+dir+": ") {
		t.Fatalf("edited run: exit %d\n%s", code, out.String())
	}
	for _, args := range [][]string{{"verify"}, {"verify", "a", "b"}, {"verify", "--no-such-flag", dir}, {"verify", filepath.Join(dir, "missing")}, {"sign", "--no-such-flag", dir}} {
		if code := runQual(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
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

// A signed run is never rewritten in place: qual report refuses (exit 2), says how to render a
// copy and how to re-sign, and leaves every file as signed; -o DIR renders a copy, and a copied
// (renamed) run keeps the run id it recorded, so verify still accepts the signed original.
func TestReportNeverRewritesASignedRun(t *testing.T) {
	key := filepath.Join(t.TempDir(), "k")
	if _, err := run(t, runKeygen, "-o", key); err != nil {
		t.Fatal(err)
	}
	dir := plannedRun(t)
	recorded, err := evidence.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, runSign, "--key", key, dir); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, name := range []string{"evidence.json", "qualification.md", "report.html", attest.EnvelopeFile} {
		before[name], _ = os.ReadFile(filepath.Join(dir, name))
	}
	_, err = run(t, runReport, "--fail-on", "failed", dir)
	if code, msg := exitOf(err); code != exitUsage || !strings.Contains(msg, "is signed") || !strings.Contains(msg, "qual report -o DIR "+dir) ||
		!strings.Contains(msg, "qual sign "+dir) {
		t.Fatalf("report on a signed run: exit %d %q", code, msg)
	}
	for name, data := range before {
		if now, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(now, data) {
			t.Errorf("%s was rewritten", name)
		}
	}
	out := filepath.Join(t.TempDir(), "copy")
	if _, err := run(t, runReport, "--fail-on", "failed", "-o", out, dir); err != nil {
		t.Fatalf("report -o: %v", err)
	}
	if e, err := evidence.Read(out); err != nil || e.RunID != recorded.RunID {
		t.Errorf("the copy's run id %q (%v), recorded %q", e.RunID, err, recorded.RunID)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error(err)
	}
	if _, err := run(t, runVerify, "--key", key+".pub", dir); err != nil {
		t.Errorf("the signed run no longer verifies: %v", err)
	}
	// A copied, unsigned run assembled in place keeps the recorded id, not its folder's name.
	renamed := filepath.Join(t.TempDir(), "renamed")
	if err := os.CopyFS(renamed, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(renamed, attest.EnvelopeFile))
	if _, err := run(t, runReport, "--fail-on", "failed", renamed); err != nil {
		t.Fatal(err)
	}
	if e, _ := evidence.Read(renamed); e.RunID != recorded.RunID {
		t.Errorf("a renamed run's id became %q, recorded %q", e.RunID, recorded.RunID)
	}
}

// exitOf is the exit status and message runQual gives an error.
func exitOf(err error) (int, string) {
	var ue usageError
	switch {
	case err == nil:
		return exitOK, ""
	case errors.As(err, &ue):
		return exitUsage, err.Error()
	}
	return exitFailed, err.Error()
}

// One caveat in one group reads in the singular.
func TestVerifyCaveatCountsReadInTheSingular(t *testing.T) {
	o := &verifyOutput{result: "VERIFIED r"}
	o.caveat("the pins and the run's name", "NOTE: run_id")
	var out strings.Builder
	o.print(&out, false)
	if !strings.Contains(out.String(), "\n1 caveat in 1 group (-v lists every one):\n") {
		t.Errorf("one caveat in one group:\n%s", out.String())
	}
}

// Verify's caveats come after its result, grouped with their counts; a long group shows two
// and says how many more, and -v lists every one with the details.
func TestVerifyCaveatsAreGroupedAndCounted(t *testing.T) {
	o := &verifyOutput{result: "VERIFIED r: verdict QUALIFIED; signature with the pinned key k"}
	for i := range 5 {
		o.caveat("not re-derived (taken as recorded)", fmt.Sprintf("asr/p%d: hardware", i))
	}
	o.caveat("the pins and the run's name", "NOTE: run_id")
	fmt.Fprintln(&o.details, "signed by key k, pinned: 9 files match")
	var short, long strings.Builder
	o.print(&short, false)
	o.print(&long, true)
	want := "VERIFIED r: verdict QUALIFIED; signature with the pinned key k\n6 caveats in 2 groups (-v lists every one):\n" +
		"  not re-derived (taken as recorded) (5)\n    asr/p0: hardware\n    asr/p1: hardware\n    … 3 more\n" +
		"  the pins and the run's name (1)\n    NOTE: run_id\n"
	if short.String() != want {
		t.Errorf("verify without -v:\n%s\nwant\n%s", short.String(), want)
	}
	if !strings.Contains(long.String(), "    asr/p4: hardware\n") || !strings.HasSuffix(long.String(), "details:\nsigned by key k, pinned: 9 files match\n") ||
		firstLine(long.String()) != firstLine(want) {
		t.Errorf("verify -v:\n%s", long.String())
	}
}

// qual verify's result line repeats the run's scope: a smoke run verifies as what it is.
func TestVerifyRepeatsTheScope(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	dir := t.TempDir()
	rows := []evidence.InventoryRow{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned},
		{Profile: "q", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusNotSelected}}
	stage := evidence.Stage{SchemaVersion: evidence.SchemaVersion, Stage: "t2i", Number: 6, TargetKind: string(target.TRTMC), Status: "planned", Reason: "signing test",
		Results:   []evidence.Result{{Profile: "p", Kind: evidence.KindFull, Counted: true, Status: evidence.StatusPlanned, Statement: "signing test"}},
		Inventory: rows, Selection: evidence.SelectionOf(rows, "smoke")}
	if err := evidence.WriteJSON(filepath.Join(dir, "t2i", "stage.json"), stage); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Assemble(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, runSign, dir); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, runVerify, dir)
	if want := "VERIFIED " + dir + ": verdict SMOKE — not a qualification: 1 of 2 rows (selected rows: NOT QUALIFIED); "; err != nil || !strings.HasPrefix(out, want) {
		t.Errorf("verify of a smoke run: %v\n%s\nwant it to start %q", err, out, want)
	}
}

// Every way of naming a key that cannot be used (a missing path, a directory, a file that is no
// PEM key, the wrong half of the pair) is a usage error on every command that takes a key: exit
// 2 with the key named, never 1, which says a check ran and failed.
func TestEveryUnusableKeyExits2(t *testing.T) {
	t.Setenv("QUAL_CACHE", t.TempDir())
	t.Setenv("QUAL_SIGNING_KEY", "")
	dir := plannedRun(t)
	if _, err := run(t, runSign, dir); err != nil {
		t.Fatal(err)
	}
	keys := t.TempDir()
	priv, pub := filepath.Join(keys, "signer"), filepath.Join(keys, "signer.pub")
	if _, err := run(t, runKeygen, "-o", priv); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(keys, "garbage.pem")
	os.WriteFile(garbage, []byte("-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n"), 0o600)
	unusable := map[string]string{"missing": filepath.Join(keys, "missing.pem"), "directory": keys, "garbage": garbage}
	type use struct {
		args  func(key string) []string
		wrong string // the other half of the pair
	}
	uses := map[string]use{
		"sign --key":        {func(k string) []string { return []string{"sign", "--key", k, "--resign", dir} }, pub},
		"sign --key-file":   {func(k string) []string { return []string{"sign", "--key-file", k, "--resign", dir} }, pub},
		"verify --key":      {func(k string) []string { return []string{"verify", "--key", k, dir} }, priv},
		"verify --key-file": {func(k string) []string { return []string{"verify", "--key-file", k, dir} }, priv},
		"merge --key": {func(k string) []string {
			return []string{"merge", "--key", k, "-o", filepath.Join(t.TempDir(), "merged"), dir}
		}, priv},
	}
	for name, u := range uses {
		cases := maps.Clone(unusable)
		cases["the other half"] = u.wrong
		for what, key := range cases {
			var out, errOut strings.Builder
			if code := runQual(context.Background(), u.args(key), &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), key) {
				t.Errorf("%s with a %s key: exit %d (want 2), stderr %q", name, what, code, errOut.String())
			}
		}
	}
	for what, env := range map[string]string{"a path": garbage, "no key": "-----BEGIN PRIVATE KEY-----\nbm8=\n-----END PRIVATE KEY-----\n", "a public key": string(must(os.ReadFile(pub)))} {
		t.Setenv("QUAL_SIGNING_KEY", env)
		var out, errOut strings.Builder
		if code := runQual(context.Background(), []string{"sign", "--resign", dir}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "QUAL_SIGNING_KEY") {
			t.Errorf("QUAL_SIGNING_KEY holding %s: exit %d (want 2), stderr %q", what, code, errOut.String())
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
