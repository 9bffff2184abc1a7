package attest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// pythonVerdict is what testdata/verify_run.py reports.
type pythonVerdict struct {
	Fingerprint    string   `json:"fingerprint"`
	Signature      string   `json:"signature"`
	AcceptedKeyIDs []string `json:"accepted_keyids"`
	PredicateType  string   `json:"predicate_type"`
	RunID          string   `json:"run_id"`
	Subjects       int      `json:"subjects"`
	Problems       []string `json:"problems"`
}

func parityPython(t *testing.T) string {
	t.Helper()
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return py
}

func pythonVerify(t *testing.T, dir string, pub []byte) pythonVerdict {
	t.Helper()
	pubPath := filepath.Join(t.TempDir(), "pub.pem")
	if err := os.WriteFile(pubPath, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(parityPython(t), "testdata/verify_run.py", dir, pubPath).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("verify_run.py: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var v pythonVerdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("verify_run.py output %q: %v", out, err)
	}
	return v
}

// TestPythonSecuresystemslibAgrees checks our envelopes with a second implementation: Python
// securesystemslib verifies the DSSE signature, in-toto-attestation validates the Statement, and
// hashlib recomputes every subject. It must accept what we accept and reject what we reject.
func TestPythonSecuresystemslibAgrees(t *testing.T) {
	dir := writeRun(t)
	priv, pub := newKey(t)
	fp := signRun(t, dir, priv)
	files, _ := Manifest(dir)

	v := pythonVerify(t, dir, pub)
	if v.Signature != "valid" || v.Fingerprint != fp || !reflect.DeepEqual(v.AcceptedKeyIDs, []string{fp}) ||
		v.PredicateType != PredicateType || v.RunID != "r1" || v.Subjects != len(files) || len(v.Problems) != 0 {
		t.Fatalf("Python on a clean signed run: %+v (our fingerprint %s, %d files)", v, fp, len(files))
	}

	os.WriteFile(filepath.Join(dir, "qualification.md"), []byte("# edited\n"), 0o644)
	os.Remove(filepath.Join(dir, "asr/m/aiperf/artifacts/raw.json"))
	v = pythonVerify(t, dir, pub)
	want := []string{"asr/m/aiperf/artifacts/raw.json: removed", "qualification.md: changed"}
	if v.Signature != "valid" || !reflect.DeepEqual(v.Problems, want) {
		t.Fatalf("Python on an edited run: %+v, want problems %v", v, want)
	}

	_, other := newKey(t)
	if v = pythonVerify(t, dir, other); v.Signature == "valid" {
		t.Fatalf("Python accepted the signature with another key: %+v", v)
	}
}

func TestPythonAcceptsECDSAP256Envelopes(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	priv := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	dir := writeRun(t)
	fp := signRun(t, dir, priv)
	pub, _ := PublicFromPrivate(priv)
	if v := pythonVerify(t, dir, pub); v.Signature != "valid" || v.Fingerprint != fp || len(v.Problems) != 0 {
		t.Fatalf("Python on an ECDSA P-256 signed run: %+v", v)
	}
}
