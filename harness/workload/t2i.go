package workload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/join"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/stage"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// t2i reads served images inline (b64_json) or, as TRTMC's serving app answers, as file://
// URLs of artifacts it kept, through artifacts (see WithArtifacts).
type t2i struct{ artifacts ArtifactReader }

func (t2i) Stage() stage.Name { return stage.T2I }

// ImageOutput is the pixel sha256 of a PNG a native run wrote.
func (t2i) ImageOutput(raw []byte) (string, error) {
	img, err := runfile.DecodePNG(raw)
	if err != nil {
		return "", fmt.Errorf("native image does not decode: %w", err)
	}
	return task.ImageSHA256Of(img), nil
}

func (t2i) Route() string        { return "/v1/images/generations" }
func (t2i) EndpointType() string { return "image_generation" }
func (t2i) Figures() []string    { return []string{"images_per_second"} }
func (t2i) IdentityRule() string {
	return "image pixels exactly equal: pixel sha256 of the HTTP PNG == server record == trtmc-native generate-image " +
		"(a file:// answer: the kept artifact is the HTTP PNG, its path is the record's artifact and its 64x64 thumbnail the record's media_digest; " +
		"an empty url from TRTMC's app: the PNG the worker named in image_artifacts, kept in the request's scratch directory, held to the same digest)"
}

// Inputs reads the pinned prompts, or the one prompt a TRTMC testcase carries itself
// (test_prompt, with its seed and negative prompt); nothing is copied into the server container.
func (t2i) Inputs(root string, m manifest.Manifest, tc manifest.Testcase, _ string) ([]Input, error) {
	prompts, err := m.Prompts(root, tc)
	if err != nil {
		return nil, err
	}
	out := make([]Input, 0, len(prompts))
	for _, p := range prompts {
		out = append(out, Input{ID: p.ID, Prompt: p})
	}
	return out, nil
}

// AIPerf sends each prompt with its seed (and negative prompt); the fixed settings are the
// testcase's, at the bundle's first declared size, as b64_json.
func (t2i) AIPerf(inputs []Input, m manifest.Manifest, tc manifest.Testcase) (Load, error) {
	l := Load{ExtraInputs: map[string]any{"response_format": "b64_json"}}
	settings, err := tc.ImageSettings() // settings{}, or TRTMC's num_inference_steps/guidance_scale
	if err != nil {
		return Load{}, err
	}
	for k, v := range settings {
		l.ExtraInputs[k] = v
	}
	if sizes, ok := m.Build["sizes"].([]any); ok && len(sizes) > 0 {
		if wh, ok := sizes[0].([]any); ok && len(wh) == 2 {
			l.ExtraInputs["size"] = fmt.Sprintf("%vx%v", wh[0], wh[1])
		}
	} else if w, h := m.Top["image_width"], m.Top["image_height"]; w != nil && h != nil {
		// TRTMC builds at the manifest's top-level image_width/image_height
		// (families/z_image/tests/manifests/z-image-turbo-l0.json; trtmc_benchmark builder.py).
		l.ExtraInputs["size"] = fmt.Sprintf("%vx%v", w, h)
	}
	for _, in := range inputs {
		extra := map[string]any{"seed": in.Prompt.Seed}
		if in.Prompt.NegativePrompt != "" {
			extra["negative_prompt"] = in.Prompt.NegativePrompt
		}
		l.Rows = append(l.Rows, map[string]any{"session_id": in.ID, "text": in.Prompt.Prompt, "extra": extra})
	}
	return l, nil
}

// Request reads the HTTP image (decoded at the requested size) and the request's settings; the
// native-run key is the whole payload, so identical settings share one native run.
func (w t2i) Request(p join.Pair, inputs []Input) (Request, error) {
	sha, err := w.HTTPOutput(p)
	if err != nil {
		return Request{}, err
	}
	width, height, err := requestedSize(p.Client.Payload)
	if err != nil {
		return Request{}, err
	}
	img := p.Server.Output.Images[0]
	if img.Width != width || img.Height != height {
		return Request{}, fmt.Errorf("image is %dx%d, requested %dx%d", img.Width, img.Height, width, height)
	}
	r := Request{Output: sha, Native: imageNativeValues(p.Client.Payload, width, height)}
	for _, in := range inputs {
		if in.Prompt.Prompt == r.Native["prompt"] {
			r.Input = in.ID
		}
	}
	payload, err := json.Marshal(p.Client.Payload)
	if err != nil {
		return Request{}, fmt.Errorf("request payload: %w", err)
	}
	r.Key = string(payload)
	return r, nil
}

// imageNativeValues are the native_run values of an images request: what the payload says, ""
// for a setting it leaves out (the target's optional flags then pass nothing).
func imageNativeValues(payload map[string]any, width, height int) map[string]string {
	get := func(k string) string {
		if v, ok := payload[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	return map[string]string{"prompt": get("prompt"), "negative_prompt": get("negative_prompt"),
		"seed": get("seed"), "steps": get("num_inference_steps"), "guidance": get("guidance_scale"),
		"width": strconv.Itoa(width), "height": strconv.Itoa(height)}
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

// HTTPOutput is the pixel sha256 of the one PNG in the response, checked against the server
// record. Inline (b64_json, our server): the record's pixel sha256 and size must be the PNG's.
// A file:// URL (TRTMC's app answers so, app.py _artifact_url): the URL must name the record's
// artifact, and the record's media_digest (digests.py image_digest) must be the digest of that
// kept file, thumbnail value for value; TRTMC's record holds no pixel hash.
func (w t2i) HTTPOutput(p join.Pair) (string, error) {
	raw, viaURL, err := w.responseImageBytes(p)
	if err != nil {
		return "", err
	}
	img, err := runfile.DecodePNG(raw)
	if err != nil {
		return "", fmt.Errorf("image does not decode: %w", err)
	}
	sha := task.ImageSHA256Of(img)
	rec := p.Server.Output.Images[0]
	switch {
	case viaURL && rec.Digest == nil:
		return "", fmt.Errorf("HTTP answered a URL but the server record holds no media_digest of its artifact")
	case viaURL:
		if err := rec.Digest.Check(img); err != nil {
			return "", fmt.Errorf("artifact %s vs server record: %w", rec.Artifact, err)
		}
	case rec.SHA256 != sha:
		return "", fmt.Errorf("HTTP image %s != server record %v", sha, p.Server.Output.Images)
	}
	if b := img.Bounds(); b.Dx() != rec.Width || b.Dy() != rec.Height {
		return "", fmt.Errorf("HTTP image is %dx%d, server record says %dx%d", b.Dx(), b.Dy(), rec.Width, rec.Height)
	}
	return sha, nil
}

// responseImageBytes is the single image of an images response: inline, or the artifact its
// file:// URL names, which must be the server record's artifact. viaURL says which.
func (w t2i) responseImageBytes(p join.Pair) (raw []byte, viaURL bool, err error) {
	if err := checkRecord(p); err != nil {
		return nil, false, err
	}
	if n := len(p.Server.Output.Images); n != 1 {
		return nil, false, fmt.Errorf("server record holds %d images, want 1", n)
	}
	var resp contract.ImageReply
	if err := json.Unmarshal([]byte(p.Client.ResponseBody()), &resp); err != nil || len(resp.Data) != 1 {
		return nil, false, fmt.Errorf("HTTP response holds no single image (%v)", err)
	}
	d := resp.Data[0]
	art := p.Server.Output.Images[0].Artifact
	if d.URL == "" && d.B64JSON == "" { // TRTMC's app answers "" when the worker names no artifact or path
		return w.workerArtifact(p.ID, art)
	}
	if d.B64JSON != "" || d.URL == "" {
		raw, err := base64.StdEncoding.DecodeString(d.B64JSON)
		if err != nil || len(raw) == 0 {
			return nil, false, fmt.Errorf("HTTP response holds no b64 image and no url (%v)", err)
		}
		return raw, false, nil
	}
	path, ok := strings.CutPrefix(d.URL, "file://")
	if !ok {
		return nil, true, fmt.Errorf("image url %q is not a file:// URL of a kept artifact", d.URL)
	}
	if art != path {
		return nil, true, fmt.Errorf("HTTP image url %s is not the server record's artifact %q", d.URL, art)
	}
	if w.artifacts == nil {
		return nil, true, fmt.Errorf("image url %s: no kept scratch directory to read the artifact from", d.URL)
	}
	raw, err = w.artifacts(d.URL)
	return raw, true, err
}

// workerArtifact is the image of a request the app answered with an empty URL (app.py @1797a247
// _artifact_url answers "" unless the worker's observation has "artifact" or "path"; the --serve
// worker of benchmark_worker.cpp @ca938e40 names its PNGs in image_artifacts instead): the file
// the record names, in the request's directory of the kept scratch. Neither is an error naming
// the worker.
func (w t2i) workerArtifact(id, art string) ([]byte, bool, error) {
	name, ok := strings.CutPrefix(art, contract.WorkerArtifactPrefix)
	if !ok || name == "" || strings.Contains(name, "/") {
		return nil, true, fmt.Errorf("HTTP answered an empty image url and the server record names no image_artifacts of the worker "+
			"(trtmc_benchmark_worker --serve names no artifact, path or image_artifacts: record artifact %q)", art)
	}
	if w.artifacts == nil {
		return nil, true, fmt.Errorf("worker artifact %s: no kept scratch directory to read it from", name)
	}
	raw, err := w.artifacts(contract.WorkerArtifactPrefix + id + "/" + name)
	return raw, true, err
}

// NativeOutput is the pixel sha256 the native run prints.
func (t2i) NativeOutput(stdout string) (string, error) {
	var res struct {
		ImageSHA256 string `json:"image_sha256"`
	}
	if err := nativeJSON(stdout, &res); err != nil {
		return "", err
	}
	if res.ImageSHA256 == "" {
		return "", fmt.Errorf("native run printed no image_sha256: %s", Tail(stdout))
	}
	return res.ImageSHA256, nil
}

// Meaning: every image decodes at the requested size (checked per request by Request), and its
// pixel mean and std are within each sanity bound the testcase declares, on the [0,1] scale
// (metrics.PixelStats) TRTMC's family tests use. A bound with no declared value — no thresholds
// file, as for most of TRTMC's image testcases, or no such key — is listed in NoBound and not
// checked; the images are still decoded.
func (w t2i) Meaning(th manifest.Thresholds, _ []evidence.Output, pairs []join.Pair) (evidence.Meaning, error) {
	m := evidence.Meaning{Checks: map[string]float64{}}
	lim := map[string]float64{}
	var rules []string
	for _, b := range imageBounds() {
		v, name, ok := th.Bound(b.names...)
		if !ok {
			m.NoBound = append(m.NoBound, b.key)
			continue
		}
		lim[b.key] = v
		m.Checks[b.key] = v
		rules = append(rules, fmt.Sprintf("%s %s %v (%s)", b.stat, b.op, v, name))
	}
	m.Rule = "images decode at the requested size"
	if len(rules) > 0 {
		m.Rule += "; each image's " + strings.Join(rules, ", ")
	}
	if len(m.NoBound) > 0 {
		m.Rule += fmt.Sprintf("; no bound declared for %s (%s)", strings.Join(m.NoBound, ", "), declaredIn(th))
	}
	worstStd, minMean, maxMean := 1.0, 1.0, 0.0
	for _, p := range pairs {
		raw, _, err := w.responseImageBytes(p)
		if err != nil {
			m.Failures = append(m.Failures, p.ID+": "+err.Error())
			continue
		}
		planes, err := metrics.DecodePNG(raw)
		if err != nil {
			m.Failures = append(m.Failures, p.ID+": "+err.Error())
			continue
		}
		s := metrics.PixelStats(planes)
		worstStd, minMean, maxMean = min(worstStd, s.Std), min(minMean, s.Mean), max(maxMean, s.Mean)
		if v, ok := lim["pixel_mean_min"]; ok && s.Mean < v {
			m.Failures = append(m.Failures, fmt.Sprintf("%s: pixel mean %.3f < %v", p.ID, s.Mean, v))
		}
		if v, ok := lim["pixel_mean_max"]; ok && s.Mean > v {
			m.Failures = append(m.Failures, fmt.Sprintf("%s: pixel mean %.3f > %v", p.ID, s.Mean, v))
		}
		if v, ok := lim["pixel_std_min"]; ok && s.Std < v {
			m.Failures = append(m.Failures, fmt.Sprintf("%s: pixel std %.3f < %v", p.ID, s.Std, v))
		}
	}
	m.Checks["pixel_std_min_seen"], m.Checks["pixel_mean_min_seen"], m.Checks["pixel_mean_max_seen"] = worstStd, minMean, maxMean
	return m, nil
}

// imageBounds are the image sanity bounds and the names a thresholds file may give each: TRTMC's
// (families/z_image/tests/test_e2e.py and families/flux/tests/test_e2e.py @d46edb11 _assert_parity
// read contract_min_pixel_mean / min_pixel_mean and so on; families/qwen_image/tests/thresholds/
// qwen-image-2512.json @d97b6655 declares min_pixel_mean, max_pixel_mean, min_pixel_std), then the
// reference target's own spelling.
func imageBounds() []struct {
	key, stat, op string
	names         []string
} {
	return []struct {
		key, stat, op string
		names         []string
	}{
		{"pixel_mean_min", "pixel mean", ">=", []string{"contract_min_pixel_mean", "min_pixel_mean", "pixel_mean_min"}},
		{"pixel_mean_max", "pixel mean", "<=", []string{"contract_max_pixel_mean", "max_pixel_mean", "pixel_mean_max"}},
		{"pixel_std_min", "pixel std", ">=", []string{"contract_min_pixel_std", "min_pixel_std", "pixel_std_min"}},
	}
}

// declaredIn says where bounds were looked for, by the file's place beside the manifests (the
// rule is stored in the evidence and derived again by verify from another checkout's path).
func declaredIn(th manifest.Thresholds) string {
	file := path.Join(filepath.Base(filepath.Dir(th.Path)), filepath.Base(th.Path))
	if !th.Declared() {
		return "no thresholds file " + file + " beside the manifests"
	}
	return "not in " + file
}

// ImagePayloadSHA is an image request's input identity (task.ImageRequestSHA256) from the payload
// AIPerf sent, read as trtmc-server reads a request (server/images.go toTaskRequest: guidance
// and steps left to the family when absent, n 1, seed 0) and completed with the family's
// defaults (spec); verify re-derives records' input_sha256 with it.
func ImagePayloadSHA(payload map[string]any, spec task.ImageSpec) (string, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return "", fmt.Errorf("image payload: %w", err)
	}
	var body contract.ImagesRequest
	if err := json.Unmarshal(raw, &body); err != nil {
		return "", fmt.Errorf("image payload: %w", err)
	}
	if body.Prompt == nil {
		return "", fmt.Errorf("image payload has no prompt")
	}
	r := task.ImageRequest{Prompt: *body.Prompt, NegativePrompt: body.NegativePrompt, Guidance: -1, Count: 1}
	if body.Size != "" {
		if r.Width, r.Height, err = requestedSize(payload); err != nil {
			return "", err
		}
	}
	if body.N != nil {
		r.Count = *body.N
	}
	if body.Seed != nil {
		r.Seed = *body.Seed
	}
	if body.Steps != nil {
		r.Steps = *body.Steps
	}
	if body.Guidance != nil {
		r.Guidance = *body.Guidance
	}
	return task.ImageRequestSHA256(task.FillImageDefaults(spec, r)), nil
}
