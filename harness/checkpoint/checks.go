package checkpoint

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
	"github.com/trtmc-qual/trtmc-qual/harness/timing"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

func audioSHA(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	a, err := audio.DecodeWAV(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return a.SHA256(), nil
}

// Join matches every AIPerf record (warmup included) to exactly one server record.
func (c *Checkpoint) Join() (join.Report, error) {
	if c.serving == nil || c.serving.aiperf == nil {
		return join.Report{}, c.fail("join", fmt.Errorf("no AIPerf run to join"))
	}
	rep := join.Join(c.serving.exports.Raw, c.serving.records, c.serving.route)
	c.Result.Join = &rep
	load := c.Env.Target.StageLoad(c.Env.Stage)
	switch {
	case !rep.OK():
		return rep, c.fail("join", fmt.Errorf("%s", rep))
	case rep.Matched != load.Warmup+load.Requests || rep.ByPhase["warmup"] != load.Warmup || rep.ByPhase["profiling"] != load.Requests:
		return rep, c.fail("join", fmt.Errorf("matched %d (%v), want %d warmup + %d measured", rep.Matched, rep.ByPhase, load.Warmup, load.Requests))
	}
	c.done("join")
	return rep, nil
}

// Identity compares, for every joined request, the HTTP output (from AIPerf's raw response),
// the server record's output and a native run on the same input inside the server container.
func (c *Checkpoint) Identity(ctx context.Context) error {
	if c.Result.Join == nil || !c.steps["join"] {
		return c.fail("identity", fmt.Errorf("no clean join to compare"))
	}
	id := &evidence.Identity{Rule: "transcript text exactly equal (HTTP == server record == trtmc-native)"}
	if c.Env.Stage == inventory.StageT2I {
		id.Rule = "image pixels exactly equal: pixel sha256 of the HTTP PNG == server record == trtmc-native generate-image"
	}
	native := map[string]string{}
	for _, p := range c.Result.Join.Pairs {
		out, err := c.compareOne(ctx, p, native)
		if err != nil {
			id.Mismatches = append(id.Mismatches, fmt.Sprintf("%s: %v", p.ID, err))
			continue
		}
		id.Equal++
		c.Result.Outputs = append(c.Result.Outputs, out)
	}
	id.Requests, id.NativeRuns = len(c.Result.Join.Pairs), len(native)
	c.Result.Identity = id
	if len(id.Mismatches) > 0 {
		return c.fail("identity", fmt.Errorf("%d of %d requests differ: %s", len(id.Mismatches), id.Requests, strings.Join(id.Mismatches[:min(5, len(id.Mismatches))], "; ")))
	}
	c.done("identity")
	return nil
}

func (c *Checkpoint) compareOne(ctx context.Context, p join.Pair, native map[string]string) (evidence.Output, error) {
	out := evidence.Output{RequestID: p.ID, Phase: p.Client.Metadata.Phase}
	if p.Client.Status != 200 || p.Server.Status != 200 || p.Server.Output == nil {
		return out, fmt.Errorf("HTTP status client %d, server %d", p.Client.Status, p.Server.Status)
	}
	var body contract.Timed
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &body); err != nil || body.Timing == nil || body.Timing.ModelCallMS != p.Server.Timing.ModelCallMS {
		return out, fmt.Errorf("response trtmc_timing %+v does not match the server record's %+v", body.Timing, p.Server.Timing)
	}
	var key string
	var err error
	switch c.Env.Stage {
	case inventory.StageASR:
		key, out.InputID, out.Gold, out.HTTPOutput, err = c.asrRequest(p)
		if err == nil && p.Server.Output.Text != out.HTTPOutput {
			err = fmt.Errorf("HTTP text %q != server record %q", out.HTTPOutput, p.Server.Output.Text)
		}
	case inventory.StageT2I:
		key, out.InputID, out.HTTPOutput, err = c.t2iRequest(p)
		if err == nil && (len(p.Server.Output.Images) != 1 || p.Server.Output.Images[0].SHA256 != out.HTTPOutput) {
			err = fmt.Errorf("HTTP image %s != server record %v", out.HTTPOutput, p.Server.Output.Images)
		}
	}
	if err != nil {
		return out, err
	}
	if _, ok := native[key]; !ok {
		if native[key], err = c.nativeRun(ctx, p); err != nil {
			return out, err
		}
	}
	out.Native = native[key]
	if out.Native != out.HTTPOutput {
		return out, fmt.Errorf("native output %q != HTTP output %q", out.Native, out.HTTPOutput)
	}
	return out, nil
}

// asrRequest identifies the request's clip by the audio it sent and reads the HTTP transcript.
func (c *Checkpoint) asrRequest(p join.Pair) (key, inputID, gold, text string, err error) {
	file, _ := p.Client.Payload["file"].(map[string]any)
	b64, _ := file["b64_data"].(string)
	wav, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", "", "", "", fmt.Errorf("raw payload audio: %w", err)
	}
	a, err := audio.DecodeWAV(wav)
	if err != nil {
		return "", "", "", "", fmt.Errorf("raw payload audio: %w", err)
	}
	sha := a.SHA256()
	if sha != p.Server.InputSHA256 {
		return "", "", "", "", fmt.Errorf("audio sent (sha %s) != audio the server decoded (%s)", sha, p.Server.InputSHA256)
	}
	var resp struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || resp.Text == nil {
		return "", "", "", "", fmt.Errorf("HTTP response has no text: %q", tail(p.Client.ResponseBody()))
	}
	for _, in := range c.serving.inputs {
		if in.AudioSHA == sha {
			return in.ID, in.ID, in.Gold, *resp.Text, nil
		}
	}
	return "", "", "", "", fmt.Errorf("request audio (sha %s) is not one of the pinned clips", sha)
}

// t2iRequest reads the request's settings and the HTTP image's pixel hash and size.
func (c *Checkpoint) t2iRequest(p join.Pair) (key, inputID, pixelSHA string, err error) {
	var resp contract.ImagesResponse
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || len(resp.Data) != 1 {
		return "", "", "", fmt.Errorf("HTTP response holds no single b64 image (%v)", err)
	}
	pngBytes, err := base64.StdEncoding.DecodeString(resp.Data[0].B64JSON)
	if err != nil {
		return "", "", "", fmt.Errorf("image base64: %w", err)
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return "", "", "", fmt.Errorf("image does not decode: %w", err)
	}
	w, h, err := requestedSize(p.Client.Payload)
	if err != nil {
		return "", "", "", err
	}
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		return "", "", "", fmt.Errorf("image is %dx%d, requested %dx%d", img.Bounds().Dx(), img.Bounds().Dy(), w, h)
	}
	prompt, _ := p.Client.Payload["prompt"].(string)
	for _, in := range c.serving.inputs {
		if in.Prompt.Prompt == prompt {
			inputID = in.ID
		}
	}
	payload, _ := json.Marshal(p.Client.Payload)
	return string(payload), inputID, task.ImageSHA256Of(img), nil
}

func requestedSize(payload map[string]any) (int, int, error) {
	size, _ := payload["size"].(string)
	ws, hs, ok := strings.Cut(size, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("request payload size %q is not WxH", size)
	}
	return w, h, nil
}

// nativeRun runs the target's native-run command for the request's input inside the server
// container, on the bundle the server serves.
func (c *Checkpoint) nativeRun(ctx context.Context, p join.Pair) (string, error) {
	values := map[string]string{"bundle": c.serving.server.BundlePath(c.bundlePath)}
	tmpl := c.Env.Target.NativeRun[c.Manifest.TaskString()]
	if len(tmpl) == 0 {
		return "", fmt.Errorf("target %s has no native_run command for task %q", c.Env.Target.Name, c.Manifest.TaskString())
	}
	switch c.Env.Stage {
	case inventory.StageASR:
		key, _, _, _, err := c.asrRequest(p)
		if err != nil {
			return "", err
		}
		values["input"] = "/data/" + key + ".wav"
	case inventory.StageT2I:
		w, h, err := requestedSize(p.Client.Payload)
		if err != nil {
			return "", err
		}
		get := func(k string) string {
			if v, ok := p.Client.Payload[k]; ok && v != nil {
				return fmt.Sprint(v)
			}
			return ""
		}
		values["prompt"], values["negative_prompt"], values["seed"] = get("prompt"), get("negative_prompt"), get("seed")
		values["steps"], values["guidance"] = get("num_inference_steps"), get("guidance_scale")
		values["width"], values["height"] = strconv.Itoa(w), strconv.Itoa(h)
	}
	args, err := target.Expand(tmpl, values)
	if err != nil {
		return "", err
	}
	code, out, err := c.serving.server.ExecOutput(ctx, args...)
	c.Result.Commands = append(c.Result.Commands, append([]string{"(in server container)"}, args...))
	if err != nil || code != 0 {
		return "", fmt.Errorf("native run %v: exit %d %v: %s", args, code, err, tail(out))
	}
	var res struct {
		Text        *string `json:"text"`
		ImageSHA256 string  `json:"image_sha256"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		return "", fmt.Errorf("native run output %q: %w", tail(out), err)
	}
	if c.Env.Stage == inventory.StageASR {
		if res.Text == nil {
			return "", fmt.Errorf("native run printed no text: %s", tail(out))
		}
		return *res.Text, nil
	}
	return res.ImageSHA256, nil
}

// Meaning checks outputs are meaningful, not only identical: ASR transcripts non-empty and
// within the family's gold-WER bound; images decodable at the requested size (checked in
// Identity) and within TRTMC's diffusion sanity bounds.
func (c *Checkpoint) Meaning() error {
	if c.Result.Identity == nil || !c.steps["identity"] {
		return c.fail("meaning", fmt.Errorf("identity did not pass"))
	}
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(c.Manifest, c.Testcase.Name))
	if err != nil {
		return c.fail("meaning", err)
	}
	m := &evidence.Meaning{Checks: map[string]float64{}}
	c.Result.Meaning = m
	switch c.Env.Stage {
	case inventory.StageASR:
		bound, err := th.Limit("gold_wer")
		if err != nil {
			return c.fail("meaning", err)
		}
		m.Rule = fmt.Sprintf("every transcript non-empty; corpus WER to gold (gold-wer-v1, unit costs) over all requests <= %v (the family's gold_wer)", bound)
		wer, empty, err := metrics.GoldCorpusWER(evidence.GoldPairs(c.Result.Outputs))
		if err != nil {
			return c.fail("meaning", err)
		}
		m.Checks["gold_wer"], m.Checks["empty_transcripts"], m.Checks["gold_wer_bound"] = wer, float64(empty), bound
		if empty > 0 {
			m.Failures = append(m.Failures, fmt.Sprintf("%d empty transcripts", empty))
		}
		if wer > bound {
			m.Failures = append(m.Failures, fmt.Sprintf("gold WER %.4f > %v", wer, bound))
		}
	case inventory.StageT2I:
		m.Rule = "images decode at the requested size; each image's pixel mean within [pixel_mean_min, pixel_mean_max] and std >= pixel_std_min"
		if err := c.imageSanity(th, m); err != nil {
			return c.fail("meaning", err)
		}
	}
	if len(m.Failures) > 0 {
		return c.fail("meaning", fmt.Errorf("%s", strings.Join(m.Failures, "; ")))
	}
	c.done("meaning")
	return nil
}

func (c *Checkpoint) imageSanity(th manifest.Thresholds, m *evidence.Meaning) error {
	lim := map[string]float64{}
	for _, k := range []string{"pixel_mean_min", "pixel_mean_max", "pixel_std_min"} {
		v, err := th.Limit(k)
		if err != nil {
			return err
		}
		lim[k] = v
	}
	worstStd, minMean, maxMean := 1.0, 1.0, 0.0
	for _, p := range c.Result.Join.Pairs {
		var resp contract.ImagesResponse
		if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || len(resp.Data) == 0 {
			m.Failures = append(m.Failures, fmt.Sprintf("%s: no image in the response (%v)", p.ID, err))
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(resp.Data[0].B64JSON)
		if err != nil {
			m.Failures = append(m.Failures, p.ID+": image base64: "+err.Error())
			continue
		}
		planes, err := metrics.DecodePNG(raw)
		if err != nil {
			m.Failures = append(m.Failures, p.ID+": "+err.Error())
			continue
		}
		s := metrics.PixelStats(planes)
		worstStd, minMean, maxMean = min(worstStd, s.Std), min(minMean, s.Mean), max(maxMean, s.Mean)
		if s.Mean < lim["pixel_mean_min"] || s.Mean > lim["pixel_mean_max"] || s.Std < lim["pixel_std_min"] {
			m.Failures = append(m.Failures, fmt.Sprintf("%s: pixel mean %.3f std %.3f outside the sanity bounds", p.ID, s.Mean, s.Std))
		}
	}
	m.Checks["pixel_std_min_seen"], m.Checks["pixel_mean_min_seen"], m.Checks["pixel_mean_max_seen"] = worstStd, minMean, maxMean
	return nil
}

// Timing derives steady-state figures over measured requests and draws the latency plot.
func (c *Checkpoint) Timing() (timing.Summary, error) {
	if c.Result.Join == nil || !c.steps["join"] {
		return timing.Summary{}, c.fail("timing", fmt.Errorf("no clean join to time"))
	}
	samples, client, task, err := timing.Samples(c.Result.Join.Pairs, c.serving.exports.Metrics)
	if err != nil {
		return timing.Summary{}, c.fail("timing", err)
	}
	sum, err := timing.Summarize(samples)
	if err != nil {
		return sum, c.fail("timing", err)
	}
	c.Result.Timing = &sum
	plot := filepath.Join(c.Dir, "latency.svg")
	if err := evidence.WriteLatencySVG(plot, c.Manifest.Name+": client latency vs Task call (measured requests)", client, task); err != nil {
		return sum, c.fail("timing", err)
	}
	c.Result.Plot = relTo(c.Env.RunDir, plot)
	c.done("timing")
	return sum, nil
}
