package checkpoint

// The steps of a TRTMC-kind target (trtmcSteps): TRTMC's own tooling builds by profile, its
// family tests gate with JUnit and keep the bundle they validated, and its native CLI prints its
// own formats. The parsing lives in harness/target; this file only wires it in.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// trtmcSteps are the checkpoint steps of a TRTMC-kind target.
type trtmcSteps struct{}

func (trtmcSteps) build(ctx context.Context, c *Checkpoint) error { return c.buildTRTMC(ctx) }

// capability asks the target's inspect command; without one, the bundle header's task decides.
func (trtmcSteps) capability(ctx context.Context, c *Checkpoint, want string) error {
	if len(c.Env.Target.Inspect) > 0 && c.step != nil {
		return c.capabilityTRTMC(ctx, want)
	}
	have, _, err := inventory.ByTaskString("", fmt.Sprint(c.Result.Bundle.Header["task"]))
	if err != nil || len(have) == 0 || string(have[0]) != want {
		return c.fail("capability", fmt.Errorf("bundle header task %v is not %s (%v)", c.Result.Bundle.Header["task"], want, err))
	}
	c.done("capability")
	return nil
}

// gate runs the family's own test when the target reads its JUnit (thresholds live in the TRTMC
// checkout, hashed there, not pinned here); otherwise the gate command, as for the reference.
func (trtmcSteps) gate(ctx context.Context, c *Checkpoint) error {
	if c.Env.Target.GateJUnit != "" && c.step != nil {
		return c.gateTRTMC(ctx)
	}
	return referenceSteps{}.gate(ctx, c)
}

// nativeArgs fills TRTMC's own values ({trtmc_binary}, {runtime_root}, ...).
func (trtmcSteps) nativeArgs(c *Checkpoint, tmpl []string, values map[string]string) ([]string, error) {
	if c.step == nil {
		return target.Expand(tmpl, values)
	}
	return c.step.NativeArgs(tmpl, values)
}

// nativeOutput reads the native CLI's declared format; an image is copied out and hashed.
func (trtmcSteps) nativeOutput(ctx context.Context, c *Checkpoint, out string) (string, error) {
	if c.Env.Target.NativeOutput[c.Manifest.TaskString()] == "" {
		return c.W.NativeOutput(out)
	}
	image, _ := c.W.(workload.ImageWriter)
	return c.parseNativeTRTMC(ctx, c.Manifest.TaskString(), out, image)
}

// trtmcStep prepares the checkpoint's TRTMC step values once.
func (c *Checkpoint) trtmcStep() (*target.Step, error) {
	if c.step != nil {
		return c.step, nil
	}
	work, err := filepath.Abs(filepath.Join(c.Dir, "work"))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	run := func(ctx context.Context, args, env []string, dir string) ([]byte, error) {
		c.Result.Commands = append(c.Result.Commands, args)
		return target.ExecRunner(ctx, args, env, dir)
	}
	c.step, err = c.Env.Target.NewStep(c.Env.Target.CheckpointValues(&c.Manifest, c.Testcase, work), run)
	return c.step, err
}

// buildTRTMC builds by profile through the target's own tooling and hashes the bundle.
func (c *Checkpoint) buildTRTMC(ctx context.Context) error {
	step, err := c.trtmcStep()
	if err != nil {
		return c.fail("build", err)
	}
	path, double, err := step.Build(ctx)
	if err != nil {
		return c.fail("build", err)
	}
	if double != "" {
		c.Result.Statement = strings.TrimSpace(double + " " + c.Result.Statement)
	}
	if err := c.recordBundle(path, "build"); err != nil {
		return err
	}
	c.Result.Bundle.BuiltBy = "build command"
	if step.BuiltByGate() {
		c.Result.Bundle.BuiltBy = "the family gate (its one engine build, then validated, inspected, served and run natively)"
	}
	return nil
}

// recordBundle makes path the bundle of record and records its hash and header.
func (c *Checkpoint) recordBundle(path, step string) error {
	b, err := bundle.Stat(path) // header only, hashed as a stream: bundles of 30B-parameter models exceed host RAM
	if err != nil {
		return c.fail(step, err)
	}
	header, err := headerMap(b.Header)
	if err != nil {
		return c.fail(step, err)
	}
	c.bundlePath = path
	c.Result.Bundle = evidence.Bundle{Path: evidence.RelPath(c.Env.RunDir, path), Bytes: b.Size, SHA256Built: b.SHA256, Header: header}
	c.logf("bundle %s (%d bytes, sha256 %s)", path, b.Size, b.SHA256)
	if step == "build" {
		c.done(step)
	}
	return nil
}

// capabilityTRTMC asks the target's inspect command what the built bundle implements. A contract
// double labels its output; the label goes into the row, so nothing it made passes for TRTMC's.
func (c *Checkpoint) capabilityTRTMC(ctx context.Context, want string) error {
	in, err := c.step.Inspect(ctx)
	if err != nil {
		return c.fail("capability", err)
	}
	if in.Double != "" && !strings.Contains(c.Result.Statement, in.Double) {
		c.Result.Statement = strings.TrimSpace(in.Double + " " + c.Result.Statement)
	}
	have, _, _ := inventory.ByTaskString("", in.Task)
	if len(have) == 0 || string(have[0]) != want {
		return c.fail("capability", fmt.Errorf("trtmc inspect reports task %q (%v), not %s", in.Task, have, want))
	}
	c.Result.Status = evidence.StatusImplemented
	c.done("capability")
	return nil
}

// gateTRTMC runs the family's own test, reads its JUnit, and makes the bundle the test validated
// the bundle of record: that file, byte for byte, is what is served.
func (c *Checkpoint) gateTRTMC(ctx context.Context) error {
	built := c.Result.Bundle.SHA256Built
	rep, validated, err := c.step.Gate(ctx, []string{c.Testcase.Name})
	if err != nil {
		return c.fail("gate", err)
	}
	res := evidence.GateResult{Testcase: c.Testcase.Name, Passed: rep.Passed, Failures: rep.Reasons}
	if rep.Passed && validated != c.bundlePath {
		if err := c.recordBundle(validated, "gate"); err != nil {
			return err
		}
		c.logf("the family test validated its own build %s (trtmc-bench built %s); serving the validated file", c.Result.Bundle.SHA256Built, built)
		c.Result.Commands = append(c.Result.Commands, []string{"(bundle of record: the gate's validated file, sha256 " + c.Result.Bundle.SHA256Built + "; the build step's was " + built + ")"})
	}
	res.BundleSHA = c.Result.Bundle.SHA256Built
	c.Result.ThresholdPin = trtmcThresholds(manifest.ThresholdsPath(c.Manifest, c.Testcase.Name))
	c.Result.Gate, c.Result.Bundle.SHA256Gated = &res, res.BundleSHA
	if !rep.Passed {
		return c.fail("gate", fmt.Errorf("family test %s failed: %v", c.Testcase.Name, rep.Reasons))
	}
	c.Result.Status = evidence.StatusFamilyValidated
	c.done("gate")
	return nil
}

// trtmcThresholds records the thresholds a TRTMC family test reads: the checkout's file, by its
// sha256 (TRTMC's thresholds are TRTMC's, not pinned in golden/), or that none is declared.
func trtmcThresholds(path string) string {
	sum, err := bundle.FileSHA256(path)
	if err != nil {
		return "none declared in the TRTMC checkout for this testcase (the family test's defaults apply)"
	}
	return "sha256:" + sum + " " + filepath.Base(path) + " (TRTMC checkout)"
}

// parseNativeTRTMC reads the target's native output format; an image (a workload that writes
// one) is copied out of the native container and read by the workload, as the HTTP side is.
func (c *Checkpoint) parseNativeTRTMC(ctx context.Context, taskString, out string, image workload.ImageWriter) (string, error) {
	format := c.Env.Target.NativeOutput[taskString]
	if image == nil {
		tr, err := target.ParseTranscript(format, []byte(out))
		return tr.Text, err
	}
	img, err := target.ParseImageRun(format, []byte(out))
	if err != nil {
		return "", err
	}
	rc, err := c.serving.native.CopyFileFromContainer(ctx, img.Output)
	if err != nil {
		return "", fmt.Errorf("copy native image %s: %w", img.Output, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return "", fmt.Errorf("copy native image %s: %w", img.Output, err)
	}
	sha, err := image.ImageOutput(data)
	if err != nil {
		return "", fmt.Errorf("native image %s: %w", img.Output, err)
	}
	return sha, nil
}

// expandServer fills the target's values into the serving GPU request and environment.
func expandServer(s target.Server, values map[string]string) target.Server {
	if g, err := target.Expand([]string{s.GPU}, values); err == nil {
		s.GPU = g[0]
	}
	env := make(map[string]string, len(s.Env))
	for k, v := range s.Env {
		if x, err := target.Expand([]string{v}, values); err == nil {
			v = x[0]
		}
		env[k] = v
	}
	s.Env = env
	return s
}
