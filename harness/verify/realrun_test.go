package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// produce copies the published reduced run QUAL_TEST_RUN names (`make test` makes it with
// `make test-run` before the packages' tests, so the suites run once per make test) and re-signs
// it with the test's key. Without it (`go test ./harness/verify` alone) it makes that run itself
// with `make test-run` into a fresh directory under build/test-run, then does the same.
func (p *publishedRun) produce(root string) {
	p.priv, p.pub, p.err = attest.GenerateKey()
	if p.err != nil {
		return
	}
	src := os.Getenv("QUAL_TEST_RUN")
	if src == "" {
		if src, p.err = p.makeRun(root); p.err != nil {
			return
		}
		defer os.RemoveAll(src)
	}
	if p.dir, p.err = os.MkdirTemp("", "qual-verify-run-"); p.err != nil {
		return
	}
	if p.err = os.CopyFS(p.dir, os.DirFS(src)); p.err != nil {
		p.err = fmt.Errorf("copying the published run %s: %w", src, p.err)
		return
	}
	os.Remove(filepath.Join(p.dir, attest.EnvelopeFile))
	os.Remove(filepath.Join(p.dir, attest.PublicKeyFile))
	if _, p.err = report.Assemble(p.dir); p.err != nil {
		return
	}
	_, p.err = attest.Sign(context.Background(), p.dir, p.priv)
}

// makeRun runs `make test-run` (the stage suites in make test's reduced form, reported, signed
// and verified as `make qualify-all` does) into a fresh run directory and returns it.
func (p *publishedRun) makeRun(root string) (string, error) {
	parent := filepath.Join(root, "build", "test-run")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "verify-")
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return "", err
	}
	cmd := exec.Command("make", "--no-print-directory", "test-run", "RUN_ID="+filepath.Base(dir), "RUN_DIR="+rel)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	p.log = string(out)
	// A failed spec (a client timeout on a loaded machine) or a verdict short of QUALIFIED still
	// publishes an honest run, which verify must accept; only a run that published nothing is an error.
	if stages, _ := filepath.Glob(filepath.Join(dir, "*", "stage.json")); err != nil && len(stages) == 0 {
		os.RemoveAll(dir)
		return "", fmt.Errorf("make test-run: %w", err)
	}
	return dir, nil
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
func realRun(t testing.TB) *publishedRun {
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

// copyRun copies the published run for one case to edit. Its bundles (most of a run's bytes,
// which no check writes) are hard links to the shared run's instead of copies, so a case copies
// ~40 MB instead of ~400; a case replaces a bundle it edits (forger.write), and a write into a
// linked bundle is caught when the case ends: the shared run's bundle changed under every case.
func copyRun(t testing.TB, p *publishedRun) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	linked, err := copyLinkingBundles(p.dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, l := range linked {
			if err := l.unchanged(); err != nil {
				t.Error(err)
			}
		}
	})
	return dir
}

// linkedFile is a shared run file a copy links to, as it was when linked.
type linkedFile struct {
	path    string
	size    int64
	modTime time.Time
}

// unchanged says whether the shared file is still as it was linked (a write through any link
// changes its size or modification time).
func (l linkedFile) unchanged() error {
	now, err := os.Stat(l.path)
	if err == nil && (now.Size() != l.size || !now.ModTime().Equal(l.modTime)) {
		err = errors.New("changed")
	}
	if err != nil {
		return fmt.Errorf("the shared run's %s was written through a case's hard link (%v): replace a bundle (forger.write), never write into it", l.path, err)
	}
	return nil
}

// copyLinkingBundles copies the run src to dst, each bundle hard-linked (copied where a link
// cannot be made, another file system), and returns the shared files linked.
func copyLinkingBundles(src, dst string) ([]linkedFile, error) {
	var linked []linkedFile
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file in the published run", path)
		case strings.HasSuffix(path, ".bundle"):
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if os.Link(path, to) == nil {
				linked = append(linked, linkedFile{path, fi.Size(), fi.ModTime()})
				return nil
			}
		}
		return copyFile(path, to)
	})
	return linked, err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// verifyAll is `qual verify --key`: the signature and file manifest with the pinned key, then
// every recomputation. It returns the signature problems and the evidence problems apart.
func verifyAll(t testing.TB, dir string, pub []byte) (signature, evidenceProblems []string) {
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
