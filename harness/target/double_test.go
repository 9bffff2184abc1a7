package target

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// TestContractDoubleRunsTheTRTMCTarget drives suites/targets/trtmc.yaml — the same file a GPU runner
// uses — against the contract double (suites/targets/testdata/trtmc-double): build by profile
// through trtmc-bench --prepare-only, trtmc inspect, the family's pytest e2e with JUnit, the bundle
// the gate validated found and hashed, a native run parsed from TRTMC's JSON line, and
// `python -m trtmc_perf_serving serve` on exactly that bundle with its records read by
// harness/contract. Only the placeholders differ from a real run. Everything here is produced by
// the double over trtmc-qual's reference models and is checked to say so.
func TestContractDoubleRunsTheTRTMCTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds trtmc-native and trtmc-server and drives the TRTMC target through the contract double (~60 s); make test runs it")
	}
	python, double, bin := doubleTools(t, "native/cmd/trtmc-native", "server/cmd/trtmc-server")
	tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc.yaml"), double)
	if err != nil {
		t.Fatal(err)
	}
	tg.Overrides = map[string]string{"python": python, "trtmc_binary": filepath.Join(double, "bin", "trtmc"),
		"serve_python": servingPython(t, python, double)}
	extra := []string{"TRTMC_DOUBLE_NATIVE=" + filepath.Join(bin, "trtmc-native"), "TRTMC_DOUBLE_SERVER=" + filepath.Join(bin, "trtmc-server")}
	for _, c := range []struct{ profile, family, testcase, task string }{
		{"procdiff-small", "procdiff", "", "image_generation"},
		{"sphinx-en-us", "sphinx", "", "transcription"},
	} {
		t.Run(c.profile, func(t *testing.T) {
			runDouble(t, tg, extra, double, c.profile, c.family, c.task)
		})
	}
}

func runDouble(t *testing.T, tg *Target, extra []string, double, profile, family, taskString string) {
	var m struct {
		Bundle    string `json:"bundle"`
		Testcases []struct {
			Name       string `json:"name"`
			InputAudio string `json:"test_input_audio"` // relative to families/<f>/tests, as TRTMC resolves it
		} `json:"testcases"`
	}
	data, err := os.ReadFile(filepath.Join(double, "families", family, "tests", "manifests", profile+".json"))
	if err != nil || json.Unmarshal(data, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	clip := filepath.Join(double, "families", family, "tests", filepath.FromSlash(m.Testcases[0].InputAudio))
	work := t.TempDir()
	read, err := manifest.Read(filepath.Join(double, "families", family, "tests", "manifests", profile+".json"))
	if err != nil {
		t.Fatal(err)
	}
	step, err := tg.NewStep(tg.CheckpointValues(&read, read.Testcases[0], work), labelled(t))
	if err != nil {
		t.Fatal(err)
	}
	step.Env = append(step.Env, extra...)
	v := step.Values
	ctx := context.Background()
	run := func(tmpl []string) []byte {
		t.Helper()
		out, err := step.exec(ctx, tmpl)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// One engine build: the family test builds its bundle and validates it; that file is inspected.
	bundle, _, err := step.Build(ctx)
	if err != nil || !strings.Contains(bundle, "pytest-tmp") || filepath.Base(bundle) != m.Bundle {
		t.Fatalf("build by the family gate: %s %v", bundle, err)
	}
	if built := bundlesUnder(t, work); len(built) != 1 {
		t.Fatalf("the row built %d bundles %v, want exactly one", len(built), built)
	}
	in, err := step.Inspect(ctx)
	if err != nil || in.Task != taskString || !strings.Contains(in.Double, "NOT a TRTMC result") {
		t.Fatalf("inspect %+v %v, want task %s", in, err, taskString)
	}
	// Gate: the same run's JUnit, and the bundle it validated is the one built and inspected.
	rep, validated, err := step.Gate(ctx, []string{v["testcase"]})
	if err != nil || !rep.Passed || validated != bundle {
		t.Fatalf("gate %+v %v: validated %s, built %s", rep, err, validated, bundle)
	}
	if built := bundlesUnder(t, work); len(built) != 1 {
		t.Fatalf("after the gate the row has %d bundles %v, want the one", len(built), built)
	}
	junitPath, _ := step.path(tg.GateJUnit)
	if junit, _ := os.ReadFile(junitPath); !bytes.Contains(junit, []byte("CONTRACT DOUBLE")) {
		t.Fatal("the double's JUnit does not carry its label")
	}
	sum := sha(t, validated)
	// Native run on that bundle.
	native := tg.NativeRun[taskString]
	switch taskString {
	case "image_generation":
		for k, x := range map[string]string{"prompt": "a red lighthouse", "negative_prompt": "", "width": "128", "height": "128", "steps": "4", "guidance": "3.5", "seed": "7"} {
			v[k] = x
		}
		native = append([]string(nil), native...)
		for i := range native {
			if native[i] == "/tmp/native.png" {
				native[i] = filepath.Join(work, "native.png")
			}
		}
		img, err := ParseImageRun(tg.NativeOutput[taskString], run(native))
		if err != nil || img.Width != 128 || img.Height != 128 {
			t.Fatalf("native image %+v %v", img, err)
		}
	case "transcription":
		v["input"] = clip
		tr, err := ParseTranscript(tg.NativeOutput[taskString], run(native))
		if err != nil || strings.TrimSpace(tr.Text) == "" {
			t.Fatalf("native transcript %+v %v", tr, err)
		}
	}
	// Serving on exactly the validated bundle, container paths mapped to host directories.
	serve(t, tg, v, step.Env, work, validated, taskString)
	if sha(t, validated) != sum {
		t.Fatal("the validated bundle changed while it was served")
	}
}

func serve(t *testing.T, tg *Target, v map[string]string, extra []string, work, bundle, taskString string) {
	args, err := Expand(tg.Server.Command, v)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	records := filepath.Join(work, "records", "records.jsonl")
	for i, a := range args {
		switch {
		case a == "/bundles/"+v["bundle_name"]:
			args[i] = bundle
		case a == tg.Server.Records:
			args[i] = records
		case a == tg.Server.Scratch:
			args[i] = filepath.Join(work, "scratch")
		case a == "0.0.0.0":
			args[i] = "127.0.0.1"
		case a == "8000":
			args[i] = fmt.Sprint(port)
		}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.Dir = append(os.Environ(), extra...), work
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	ready(t, base+"/health/ready")
	if taskString != "image_generation" { // app.py transcriptions: no file part is refused, and leaves no record
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("model", "sphinx-en-us")
		mw.Close()
		resp, err := http.Post(base+"/v1/audio/transcriptions", mw.FormDataContentType(), &body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Fatalf("a form without a file part: status %d, want 400", resp.StatusCode)
		}
	}
	var req *http.Request
	if taskString == "image_generation" {
		req, _ = http.NewRequest("POST", base+"/v1/images/generations", strings.NewReader(`{"model":"procdiff-small","prompt":"a red lighthouse","size":"128x128","num_inference_steps":4,"seed":7}`))
		req.Header.Set("Content-Type", "application/json")
	} else {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "clip.wav")
		clip, _ := os.ReadFile(v["input"])
		fw.Write(clip)
		mw.WriteField("model", "sphinx-en-us")
		mw.Close()
		req, _ = http.NewRequest("POST", base+"/v1/audio/transcriptions", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
	}
	req.Header.Set("X-Request-ID", "double-req-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	parsed, err := contract.ParseResponse(resp.Header, body)
	if err != nil || parsed.RequestID != "double-req-1" {
		t.Fatalf("response %+v %v", parsed, err)
	}
	servedKeysAreTRTMCs(t, base, map[bool]string{true: "images", false: "transcription"}[taskString == "image_generation"], body)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the serving double did not stop on SIGTERM")
	}
	data, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := contract.ParseRecords(data)
	if err != nil || len(recs) != 1 || recs[0].RequestID != "double-req-1" || recs[0].Timing.ModelCallMS <= 0 {
		t.Fatalf("records %+v %v\n%s", recs, err, data)
	}
	if !bytes.Contains(data, []byte(`"timing": {`)) || bytes.Contains(data, []byte("contract_double")) {
		t.Fatalf("records are not in TRTMC's shape (and only its keys): %s", data)
	}
	recordKeysAreTRTMCs(t, data)
	if taskString == "image_generation" {
		keptArtifact(t, body, recs[0], filepath.Join(work, "scratch"))
		return
	}
	// The served request is the profile's testcase: at most its max_new_tokens (5) tokens, as the
	// native run with --max-output-tokens 5 (profiles.py @ca938e40 resolve_profile).
	var answer struct{ Text string }
	if json.Unmarshal(body, &answer); len(strings.Fields(answer.Text)) != 5 {
		t.Fatalf("served transcript %q is not limited to the testcase's max_new_tokens 5", answer.Text)
	}
}

// keptArtifact checks TRTMC's image answer as its --serve worker makes it: the worker names its PNG
// in image_artifacts, not as artifact or path, so the app answers an empty url (app.py @1797a247
// _artifact_url; benchmark_worker.cpp @ca938e40 run_generate_image); the PNG is kept in the
// request's scratch directory, which the record names and whose media_digest it holds.
func keptArtifact(t *testing.T, body []byte, rec contract.Record, scratch string) {
	var resp contract.ImageReply
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Data) != 1 || resp.Data[0].B64JSON != "" || resp.Data[0].URL != "" {
		t.Fatalf("image answer is not TRTMC's single empty url: %v %.300s", err, body)
	}
	name, ok := strings.CutPrefix(rec.Output.Images[0].Artifact, contract.WorkerArtifactPrefix)
	if !ok || rec.Output == nil || len(rec.Output.Images) != 1 || rec.Output.Images[0].Digest == nil {
		t.Fatalf("record %+v names no worker image artifact", rec.Output)
	}
	f, err := os.Open(filepath.Join(scratch, rec.RequestID, name))
	if err != nil {
		t.Fatalf("artifact not kept: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Output.Images[0].Digest.Check(img); err != nil {
		t.Fatalf("the record's media_digest is not the kept artifact's: %v", err)
	}
}

// labelled runs a double's command and requires it to announce itself as the contract double.
// bundlesUnder lists every .bundle file under dir: one engine build leaves one.
func bundlesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".bundle") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func labelled(t *testing.T) Runner {
	return func(ctx context.Context, args, env []string, dir string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Env, cmd.Dir = append(os.Environ(), env...), dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if !strings.Contains(stderr.String(), "CONTRACT DOUBLE") {
			t.Errorf("%s did not announce itself as the contract double", args[0])
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return out, nil
	}
}

func ready(t *testing.T, url string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s never ready", url)
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func sha(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// servingPython is a venv on this machine with the double's serving requirements installed
// offline from the pinned serving wheelhouse (containers/images ServingWheelhouse), the same
// packages the harness installs on the serving image: the serving double refuses to start
// without them, as TRTMC's app would.
func servingPython(t *testing.T, python, double string) string {
	t.Helper()
	ctx := context.Background()
	b := &images.Builder{Log: io.Discard, CacheDir: os.Getenv("QUAL_CACHE")}
	in, err := images.LocalInterpreter(ctx, python)
	if err != nil {
		t.Fatal(err)
	}
	requirements := filepath.Join(double, "apps", "perf_serving", "requirements.txt")
	wheels, constraints, err := b.ServingWheelhouse(ctx, requirements, in)
	if err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(b.CacheDirPath(), "venvs", filepath.Base(wheels))
	venvPython := filepath.Join(venv, "bin", "python3")
	if _, err := os.Stat(filepath.Join(venv, ".complete")); err == nil {
		return venvPython
	}
	os.RemoveAll(venv)
	for _, args := range [][]string{
		{python, "-m", "venv", venv},
		{venvPython, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links", wheels, "-c", constraints, "-r", requirements},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(venv, ".complete"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return venvPython
}

// doubleTools finds python3 and the double's tree, and builds the reference binaries the double
// runs (pkgs, relative to the repository) into a temporary directory.
func doubleTools(t *testing.T, pkgs ...string) (python, double, bin string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is required (make deps installs it): %v", err)
	}
	root := repoRoot()
	double, bin = filepath.Join(root, "suites", "targets", "testdata", "trtmc-double"), t.TempDir()
	for _, pkg := range pkgs {
		build := exec.Command("go", "build", "-o", bin, "./"+pkg)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return python, double, bin
}
