package verify

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/config/machine"
	"github.com/trtmc-qual/trtmc-qual/harness/report"
)

// publishedRun is one real reduced run produced by the suites, made once per test process and
// copied by every case that edits it.
type publishedRun struct {
	once sync.Once
	dir  string
	priv []byte
	pub  []byte
	err  error
	log  string
}

// produce runs the ASR, T2I and audio-QA suites in their reduced form into a fresh run directory, assembles it
// (qual report) and signs it (qual sign), as `make qualify-all` does. QUAL_VERIFY_RUN names an
// already published run to copy instead (it is re-signed with the test's key).
func (p *publishedRun) produce(root string) {
	p.priv, p.pub, p.err = attest.GenerateKey()
	if p.err != nil {
		return
	}
	p.dir, p.err = os.MkdirTemp("", "qual-verify-run-")
	if p.err != nil {
		return
	}
	if src := os.Getenv("QUAL_VERIFY_RUN"); src != "" {
		p.err = os.CopyFS(p.dir, os.DirFS(src))
		os.Remove(filepath.Join(p.dir, attest.EnvelopeFile))
		os.Remove(filepath.Join(p.dir, attest.PublicKeyFile))
	} else {
		cmd := exec.Command("go", "tool", "ginkgo", "--timeout=50m", "--keep-going", "--junit-report=junit.xml", "--output-dir="+filepath.Join(p.dir, "junit"),
			"--keep-separate-reports", "./suites/asr", "./suites/t2i", "./suites/audioqa")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "QUAL_RUN_DIR="+p.dir, "QUAL_TARGET="+filepath.Join(root, "suites", "targets", "reference.yaml"),
			"QUAL_TRTMC_ROOT=", "QUAL_SHARD=", "QUAL_ASR_WARMUP=2", "QUAL_ASR_REQUESTS=8", "QUAL_T2I_WARMUP=1", "QUAL_T2I_REQUESTS=4", "QUAL_ASR_RUNS=2", "QUAL_T2I_RUNS=2")
		// A failed spec (a client timeout on a loaded machine) still publishes an honest run with
		// a failed row, which verify must accept; only a run that published nothing is an error.
		out, err := cmd.CombinedOutput()
		p.log = string(out)
		if stages, _ := filepath.Glob(filepath.Join(p.dir, "*", "stage.json")); err != nil && len(stages) == 0 {
			p.err = err
			return
		}
	}
	if p.err != nil {
		return
	}
	if _, p.err = report.Assemble(p.dir); p.err != nil {
		return
	}
	_, p.err = attest.Sign(context.Background(), p.dir, p.priv)
}

var reducedRun publishedRun

// TestMain removes the shared run after every test of the package has used it.
func TestMain(m *testing.M) {
	code := m.Run()
	if reducedRun.dir != "" {
		os.RemoveAll(reducedRun.dir)
	}
	os.Exit(code)
}

// realRun returns the shared published run (never edit it: copy it with copyRun).
func realRun(t *testing.T) *publishedRun {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real reduced run of the suites (Docker); -short skips it")
	}
	reducedRun.once.Do(func() { reducedRun.produce(repoRoot(t)) })
	if reducedRun.err != nil {
		t.Fatalf("producing the reduced run in %s: %v\n%s", reducedRun.dir, reducedRun.err, tailOf(reducedRun.log, 4000))
	}
	return &reducedRun
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// copyRun copies the published run for one case to edit.
func copyRun(t *testing.T, p *publishedRun) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(p.dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// verifyAll is `qual verify --key`: the signature and file manifest with the pinned key, then
// every recomputation. It returns the signature problems and the evidence problems apart.
func verifyAll(t *testing.T, dir string, pub []byte) (signature, evidenceProblems []string) {
	t.Helper()
	rep, err := attest.Verify(context.Background(), dir, pub)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		signature = append(signature, p.String())
	}
	problems, err := Problems(dir, envOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		evidenceProblems = append(evidenceProblems, p.String())
	}
	return signature, evidenceProblems
}

func containsAll(problems []string, parts ...string) bool {
	for _, p := range problems {
		ok := true
		for _, part := range parts {
			ok = ok && strings.Contains(p, part)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestPythonVerifiesTheRealRun checks the real run's signature and every subject with the Python
// securesystemslib and in-toto-attestation packages (harness/attest/testdata/verify_run.py), a
// second implementation, as the attest tests do on a small run.
func TestPythonVerifiesTheRealRun(t *testing.T) {
	run := realRun(t)
	py, err := machine.ParityFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(t.TempDir(), "pub.pem")
	if err := os.WriteFile(pub, run.pub, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join(repoRoot(t), "harness", "attest", "testdata", "verify_run.py"), run.dir, pub).Output()
	if err != nil {
		t.Fatalf("verify_run.py with %s (make deps builds the parity venv): %v", py, err)
	}
	var v struct {
		Signature string   `json:"signature"`
		Subjects  int      `json:"subjects"`
		Problems  []string `json:"problems"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("verify_run.py output %q: %v", out, err)
	}
	files, err := attest.Manifest(run.dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Signature != "valid" || v.Subjects != len(files) || len(v.Problems) != 0 {
		t.Fatalf("Python on the real run: %s", out)
	}
	t.Logf("Python securesystemslib + in-toto-attestation: signature valid, %d subjects match", v.Subjects)
}
