package attest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// writeRun makes a small published run: evidence.json with the fields the predicate names and a
// few nested files.
func writeRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"evidence.json": `{"schema_version":4,"run_id":"r1","target":"suites/targets/reference.yaml","target_kind":"reference",
			"versions":{"go":"go1.26"},"hardware":{"cpu":"x","cores":2},
			"stages":[{"stage":"asr","results":[{"profile":"m","commands":[["trtmc-native","transcribe"],["aiperf","profile"]]}]}]}`,
		"qualification.md":                "# report\n",
		"asr/m/server-records.jsonl":      `{"request_id":"a"}` + "\n",
		"asr/m/aiperf/artifacts/raw.json": "{}\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newKey(t *testing.T) (priv, pub []byte) {
	t.Helper()
	priv, pub, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return priv, pub
}

func signRun(t *testing.T, dir string, priv []byte) string {
	t.Helper()
	fp, err := Sign(context.Background(), dir, priv)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func verifyRun(t *testing.T, dir string, pinned []byte) Report {
	t.Helper()
	rep, err := Verify(context.Background(), dir, pinned)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// requireProblem fails unless exactly one problem names where and contains what.
func requireProblem(t *testing.T, rep Report, where, what string) {
	t.Helper()
	if len(rep.Problems) != 1 || rep.Problems[0].Where != where || !strings.Contains(rep.Problems[0].What, what) {
		t.Fatalf("want one problem %s: ...%s..., got %v", where, what, rep.Problems)
	}
}

func TestSignedRunVerifiesPinnedAndRecorded(t *testing.T) {
	dir := writeRun(t)
	priv, pub := newKey(t)
	fp := signRun(t, dir, priv)
	want, _ := Fingerprint(pub)
	if fp != want || len(fp) != 64 {
		t.Fatalf("fingerprint %q, want %q", fp, want)
	}
	pinned := verifyRun(t, dir, pub)
	if len(pinned.Problems) != 0 || !pinned.Pinned || pinned.Fingerprint != fp || pinned.Files != 4 {
		t.Fatalf("pinned verify: %+v", pinned)
	}
	recorded := verifyRun(t, dir, nil)
	if len(recorded.Problems) != 0 || recorded.Pinned || recorded.Fingerprint != fp || recorded.RecordedFingerprint != fp {
		t.Fatalf("verify with the recorded key: %+v", recorded)
	}
}

func TestStatementIsInTotoWithThePredicate(t *testing.T) {
	dir := writeRun(t)
	priv, _ := newKey(t)
	signRun(t, dir, priv)
	var env dsse.Envelope
	data, _ := os.ReadFile(filepath.Join(dir, EnvelopeFile))
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(env.Payload)
	var st struct {
		Type          string `json:"_type"`
		PredicateType string `json:"predicateType"`
		Subject       []struct {
			Name   string            `json:"name"`
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		Predicate struct {
			RunID    string            `json:"run_id"`
			Target   string            `json:"target"`
			Versions map[string]string `json:"versions"`
			Hardware map[string]any    `json:"hardware"`
			Commands []struct {
				Stage, Profile string
				Argv           []string
			} `json:"commands"`
		} `json:"predicate"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	if env.PayloadType != PayloadType || st.Type != "https://in-toto.io/Statement/v1" || st.PredicateType != PredicateType {
		t.Fatalf("envelope %s, statement %s / %s", env.PayloadType, st.Type, st.PredicateType)
	}
	if st.Predicate.RunID != "r1" || st.Predicate.Versions["go"] != "go1.26" || st.Predicate.Hardware["cores"] != 2.0 ||
		len(st.Predicate.Commands) != 2 || st.Predicate.Commands[1].Argv[0] != "aiperf" || st.Predicate.Commands[0].Profile != "m" {
		t.Fatalf("predicate %+v", st.Predicate)
	}
	files, err := Manifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Subject) != len(files) {
		t.Fatalf("%d subjects for %d files", len(st.Subject), len(files))
	}
	for i, f := range files {
		if st.Subject[i].Name != f.Path || st.Subject[i].Digest["sha256"] != f.SHA256 {
			t.Errorf("subject %d = %v, file %v", i, st.Subject[i], f)
		}
	}
}

func TestFileEditsAreNamed(t *testing.T) {
	cases := []struct {
		name, where, what string
		edit              func(dir string) error
	}{
		{"changed", "asr/m/server-records.jsonl", "changed after signing", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "asr/m/server-records.jsonl"), []byte(`{"request_id":"b"}`+"\n"), 0o644)
		}},
		{"added", "asr/m/extra.txt", "added after signing", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "asr/m/extra.txt"), []byte("x"), 0o644)
		}},
		{"removed", "asr/m/aiperf/artifacts/raw.json", "removed after signing", func(dir string) error {
			return os.Remove(filepath.Join(dir, "asr/m/aiperf/artifacts/raw.json"))
		}},
		{"symlink", ".", "not a regular file", func(dir string) error {
			return os.Symlink("qualification.md", filepath.Join(dir, "link.md"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRun(t)
			priv, pub := newKey(t)
			signRun(t, dir, priv)
			if err := c.edit(dir); err != nil {
				t.Fatal(err)
			}
			requireProblem(t, verifyRun(t, dir, pub), c.where, c.what)
		})
	}
}

func TestSignatureProblems(t *testing.T) {
	t.Run("another key pinned", func(t *testing.T) {
		dir := writeRun(t)
		priv, _ := newKey(t)
		_, other := newKey(t)
		signRun(t, dir, priv)
		requireProblem(t, verifyRun(t, dir, other), EnvelopeFile, "signature does not verify")
	})
	t.Run("re-signed by someone else", func(t *testing.T) {
		// A forger edits a file and re-signs with their own key, replacing the recorded one:
		// only a pinned key catches it; without one the fingerprint changes (and is printed).
		dir := writeRun(t)
		priv, pub := newKey(t)
		fp := signRun(t, dir, priv)
		os.WriteFile(filepath.Join(dir, "qualification.md"), []byte("# forged\n"), 0o644)
		forger, _ := newKey(t)
		signRun(t, dir, forger)
		requireProblem(t, verifyRun(t, dir, pub), EnvelopeFile, "signature does not verify with key "+fp)
		if rep := verifyRun(t, dir, nil); len(rep.Problems) != 0 || rep.Fingerprint == fp || rep.Pinned {
			t.Fatalf("unpinned verify of a re-signed run: %+v", rep)
		}
	})
	t.Run("payload edited", func(t *testing.T) {
		dir := writeRun(t)
		priv, pub := newKey(t)
		signRun(t, dir, priv)
		path := filepath.Join(dir, EnvelopeFile)
		var env dsse.Envelope
		data, _ := os.ReadFile(path)
		json.Unmarshal(data, &env)
		payload, _ := base64.StdEncoding.DecodeString(env.Payload)
		payload = []byte(strings.Replace(string(payload), `"r1"`, `"r2"`, 1))
		env.Payload = base64.StdEncoding.EncodeToString(payload)
		data, _ = json.Marshal(env)
		os.WriteFile(path, data, 0o644)
		requireProblem(t, verifyRun(t, dir, pub), EnvelopeFile, "signature does not verify")
	})
	t.Run("unsigned", func(t *testing.T) {
		dir := writeRun(t)
		_, pub := newKey(t)
		requireProblem(t, verifyRun(t, dir, pub), EnvelopeFile, "run is not signed")
		requireProblem(t, verifyRun(t, dir, nil), PublicKeyFile, "run is not signed")
	})
}

func TestECDSAP256KeysSignAndOtherCurvesAreRefused(t *testing.T) {
	encode := func(curve elliptic.Curve) []byte {
		k, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, _ := x509.MarshalPKCS8PrivateKey(k)
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	dir := writeRun(t)
	priv := encode(elliptic.P256())
	signRun(t, dir, priv)
	pub, _ := PublicFromPrivate(priv)
	if rep := verifyRun(t, dir, pub); len(rep.Problems) != 0 {
		t.Fatalf("ECDSA P-256: %v", rep.Problems)
	}
	if _, err := Sign(context.Background(), writeRun(t), encode(elliptic.P384())); err == nil || !strings.Contains(err.Error(), "only P-256") {
		t.Fatalf("P-384 key: %v", err)
	}
}

func TestRunWithoutEvidenceIsNotSigned(t *testing.T) {
	dir := writeRun(t)
	os.Remove(filepath.Join(dir, "evidence.json"))
	priv, _ := newKey(t)
	if _, err := Sign(context.Background(), dir, priv); err == nil || !strings.Contains(err.Error(), "not a published run") {
		t.Fatalf("signing a directory without evidence.json: %v", err)
	}
}

// TestUnreadableRecordedKeyIsAProblem: with a pinned key, a garbled public key recorded beside
// the run is reported, not silently left without a fingerprint.
func TestUnreadableRecordedKeyIsAProblem(t *testing.T) {
	dir := writeRun(t)
	priv, pub := newKey(t)
	signRun(t, dir, priv)
	if err := os.WriteFile(filepath.Join(dir, PublicKeyFile), []byte("not a key"), 0o644); err != nil {
		t.Fatal(err)
	}
	requireProblem(t, verifyRun(t, dir, pub), PublicKeyFile, "the public key recorded beside the run is unreadable")
}

// TestEverySignatureMustVerify appends a second signature that does not verify (another key's
// signature over the same payload, and garbage) to a valid envelope: DSSE's threshold of one
// would accept it; a published run is refused.
func TestEverySignatureMustVerify(t *testing.T) {
	for name, extra := range map[string]func(t *testing.T, env dsse.Envelope) dsse.Signature{
		"another key's signature": func(t *testing.T, env dsse.Envelope) dsse.Signature {
			other := writeRun(t)
			forger, _ := newKey(t)
			signRun(t, other, forger)
			var o dsse.Envelope
			data, _ := os.ReadFile(filepath.Join(other, EnvelopeFile))
			json.Unmarshal(data, &o)
			return o.Signatures[0]
		},
		"garbage with the same keyid": func(t *testing.T, env dsse.Envelope) dsse.Signature {
			return dsse.Signature{KeyID: env.Signatures[0].KeyID, Sig: base64.StdEncoding.EncodeToString([]byte("not a signature"))}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeRun(t)
			priv, pub := newKey(t)
			signRun(t, dir, priv)
			path := filepath.Join(dir, EnvelopeFile)
			var env dsse.Envelope
			data, _ := os.ReadFile(path)
			if err := json.Unmarshal(data, &env); err != nil {
				t.Fatal(err)
			}
			env.Signatures = append(env.Signatures, extra(t, env))
			data, _ = json.Marshal(env)
			os.WriteFile(path, data, 0o644)
			requireProblem(t, verifyRun(t, dir, pub), EnvelopeFile, "signature 2 of 2")
			requireProblem(t, verifyRun(t, dir, nil), EnvelopeFile, "every signature must verify")
		})
	}
}

// TestDirectoriesAreSignedByTheirFiles adds an empty directory to a signed run: it holds no
// signed file, so it was added after signing (verify's recomputations glob directories).
func TestDirectoriesAreSignedByTheirFiles(t *testing.T) {
	dir := writeRun(t)
	priv, pub := newKey(t)
	signRun(t, dir, priv)
	if err := os.MkdirAll(filepath.Join(dir, "asr", "m", "aiperf", "artifacts", "profile_runs", "run_0009"), 0o755); err != nil {
		t.Fatal(err)
	}
	requireProblem(t, verifyRun(t, dir, pub), "asr/m/aiperf/artifacts/profile_runs/", "directory added after signing")
}

// TestRunNamedThroughALinkVerifies names the run through a symbolic link (reports/latest): the
// run is the directory it points to; a link inside the run stays refused.
func TestRunNamedThroughALinkVerifies(t *testing.T) {
	dir := writeRun(t)
	priv, pub := newKey(t)
	signRun(t, dir, priv)
	latest := filepath.Join(t.TempDir(), "latest")
	if err := os.Symlink(dir, latest); err != nil {
		t.Fatal(err)
	}
	if rep := verifyRun(t, latest, pub); len(rep.Problems) != 0 || rep.Files != 4 {
		t.Fatalf("a run named through a link: %+v", rep)
	}
	if err := os.Symlink("evidence.json", filepath.Join(dir, "asr", "link.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(context.Background(), latest, pub); err == nil {
		if rep := verifyRun(t, latest, pub); len(rep.Problems) == 0 {
			t.Fatal("a link inside the run was accepted")
		}
	}
}

// A run published without its bundles (the CI upload) verifies when the caller allows exactly
// those files to be absent: each is listed, never silently passed; any other missing file, or a
// bundle missing without that allowance, is still "removed after signing".
func TestBundlesMayBeAbsentOnlyWhenAllowed(t *testing.T) {
	dir := writeRun(t)
	bundle := filepath.Join(dir, "asr", "m", "m.bundle")
	if err := os.WriteFile(bundle, []byte("BUNDLE\x01\x00 a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	priv, pub := newKey(t)
	signRun(t, dir, priv)
	os.Remove(bundle)
	isBundle := func(name string) bool { return strings.HasSuffix(name, ".bundle") }
	rep, err := VerifyAllowingAbsent(context.Background(), dir, pub, isBundle)
	if err != nil || len(rep.Problems) != 0 || len(rep.Absent) != 1 || rep.Absent[0] != "asr/m/m.bundle" {
		t.Fatalf("bundle absent, allowed: %+v %v", rep, err)
	}
	requireProblem(t, verifyRun(t, dir, pub), "asr/m/m.bundle", "removed after signing")
	os.Remove(filepath.Join(dir, "qualification.md"))
	rep, err = VerifyAllowingAbsent(context.Background(), dir, pub, isBundle)
	if err != nil {
		t.Fatal(err)
	}
	requireProblem(t, rep, "qualification.md", "removed after signing")
}
