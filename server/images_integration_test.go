package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/harness/workload"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/families/procdiff"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

func imageBundle(t testing.TB, profile string) string {
	t.Helper()
	path := filepath.Join(sharedDir(t), profile+".bundle")
	if _, err := os.Stat(path); err != nil {
		st.BuildBundle(t, "procdiff", profile, sharedDir(t))
	}
	return path
}

func imageRequest(t *testing.T, url, body string) st.Response {
	t.Helper()
	return st.Do(t, st.JSONPost(t, url+"/v1/images/generations", body))
}

// TestHTTPImagesEqualNativeCLI: for every pinned prompt, the PNG served over HTTP decodes to the
// same pixels as `trtmc-native generate-image` with the same settings.
func TestHTTPImagesEqualNativeCLI(t *testing.T) {
	f := setup(t)
	small := imageBundle(t, "procdiff-small")
	p := st.Start(t, f.server, []string{small})
	prompts, err := dataset.ReadPrompts(filepath.Join(st.RepoRoot(), "golden", "t2i", "prompts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range prompts {
		body, _ := json.Marshal(map[string]any{"model": "procdiff-small", "prompt": pr.Prompt, "negative_prompt": pr.NegativePrompt,
			"seed": pr.Seed, "size": "256x256", "num_inference_steps": 20, "guidance_scale": 3.5, "response_format": "b64_json", "n": 1})
		r := imageRequest(t, p.URL, string(body))
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", pr.ID, r.Status, r.Body)
		}
		data := r.JSON["data"].([]any)[0].(map[string]any)
		pngBytes, err := base64.StdEncoding.DecodeString(data["b64_json"].(string))
		if err != nil {
			t.Fatal(err)
		}
		httpImg, err := metrics.DecodePNG(pngBytes)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), pr.ID+".png")
		args := []string{"generate-image", small, "--prompt", pr.Prompt, "--seed", fmt.Sprint(pr.Seed), "--width", "256", "--height", "256",
			"--steps", "20", "--guidance", "3.5", "--output", out}
		if pr.NegativePrompt != "" {
			args = append(args, "--negative-prompt", pr.NegativePrompt)
		}
		if msg, err := exec.Command(f.native, args...).CombinedOutput(); err != nil {
			t.Fatalf("native: %v %s", err, msg)
		}
		nativeBytes, _ := os.ReadFile(out)
		nativeImg, err := metrics.DecodePNG(nativeBytes)
		if err != nil {
			t.Fatal(err)
		}
		if mse, err := metrics.MSE(httpImg, nativeImg); err != nil || mse != 0 {
			t.Errorf("%s: HTTP and native pixels differ (MSE %v, err %v)", pr.ID, mse, err)
		}
	}
	if err := p.Stop(t); err != nil {
		t.Fatal(err)
	}
	for _, rec := range readRecords(t, p)[p.StartupRecords:] {
		o := rec.Output
		if rec.Status != 200 || o == nil || len(o.Images) != 1 || len(o.Images[0].SHA256) != 64 || o.Images[0].Width != 256 ||
			o.Steps != 20 || *o.Guidance != 3.5 || o.Precision != "fp32" || o.Count != 1 || rec.InputSHA256 == "" {
			t.Errorf("image record incomplete: %+v", rec)
		}
	}
}

func TestImageURLArtifactsServeAndExpire(t *testing.T) {
	f := setup(t)
	l0 := imageBundle(t, "procdiff-small-l0")
	p := st.Start(t, f.server, []string{l0}, "--artifact-ttl", "2s")
	r := imageRequest(t, p.URL, `{"model":"procdiff-small-l0","prompt":"a red kite","response_format":"url","n":2,"seed":3}`)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	items := r.JSON["data"].([]any)
	if len(items) != 2 {
		t.Fatalf("n=2 gave %d images", len(items))
	}
	url := items[0].(map[string]any)["url"].(string)
	if !strings.HasPrefix(url, p.URL+"/v1/artifacts/") || items[0].(map[string]any)["expires_at"] == nil {
		t.Fatalf("url item %v", items[0])
	}
	got := st.Do(t, get(t, url))
	if got.Status != 200 || got.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("artifact: %d %s", got.Status, got.Header)
	}
	if _, err := metrics.DecodePNG(got.Body); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if gone := st.Do(t, get(t, url)); gone.Status != http.StatusGone || gone.ErrorCode() != contract.CodeArtifactExpired {
		t.Errorf("expired artifact: %d %s", gone.Status, gone.Body)
	}
}

func TestImageRouteRejectsWhatTheBundleCannotHonor(t *testing.T) {
	f := setup(t)
	base := imageBundle(t, "procdiff-small-l0")
	p := st.Start(t, f.server, []string{base})
	cases := map[string]struct {
		body string
		code string
	}{
		"size":          {`{"model":"procdiff-small-l0","prompt":"x","size":"512x512"}`, "unsupported_size"},
		"size syntax":   {`{"model":"procdiff-small-l0","prompt":"x","size":"big"}`, contract.CodeInvalidValue},
		"steps":         {`{"model":"procdiff-small-l0","prompt":"x","num_inference_steps":500}`, "unsupported_steps"},
		"steps zero":    {`{"model":"procdiff-small-l0","prompt":"x","num_inference_steps":0}`, contract.CodeInvalidValue},
		"guidance":      {`{"model":"procdiff-small-l0","prompt":"x","guidance_scale":99}`, "unsupported_guidance"},
		"n":             {`{"model":"procdiff-small-l0","prompt":"x","n":9}`, "unsupported_n"},
		"no prompt":     {`{"model":"procdiff-small-l0"}`, contract.CodeMissingField},
		"stream":        {`{"model":"procdiff-small-l0","prompt":"x","stream":true}`, contract.CodeUnsupportedOption},
		"format":        {`{"model":"procdiff-small-l0","prompt":"x","response_format":"jpeg"}`, contract.CodeInvalidValue},
		"transcription": {"", contract.CodeUnsupportedCapability},
	}
	for name, c := range cases {
		var r st.Response
		if name == "transcription" {
			r = st.Do(t, transcription(t, p.URL, "procdiff-small-l0", cardsClip(t, "001")))
		} else {
			r = imageRequest(t, p.URL, c.body)
		}
		if r.Status != 400 || r.ErrorCode() != c.code {
			t.Errorf("%s: %d %q, want 400 %q (%s)", name, r.Status, r.ErrorCode(), c.code, r.Body)
		}
	}
}

// TestImageInputSHAIsWhatVerifyDerives: the input_sha256 the real binary records for an image
// request, with any of its settings left to the family, is what qual verify re-derives from the
// payload and the served bundle's defaults (workload.ImagePayloadSHA), so that verify's check
// of a run's records cannot disagree with an honest server.
func TestImageInputSHAIsWhatVerifyDerives(t *testing.T) {
	f := setup(t)
	small := imageBundle(t, "procdiff-small")
	b, err := bundle.Open(small)
	if err != nil {
		t.Fatal(err)
	}
	mdl, err := procdiff.Family{}.Load(b, family.LoadOptions{Lanes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer mdl.Close()
	gen, err := task.Lookup[task.ImageGenerator](mdl, "procdiff-small", task.TextToImage)
	if err != nil {
		t.Fatal(err)
	}
	payloads := []map[string]any{
		{"model": "procdiff-small", "prompt": "a lighthouse", "seed": 11, "size": "256x256", "num_inference_steps": 20, "guidance_scale": 3.5, "n": 1},
		{"model": "procdiff-small", "prompt": "a lighthouse"}, // every setting the family's
		{"model": "procdiff-small", "prompt": "a forest", "negative_prompt": "fog", "seed": 7, "guidance_scale": 0},
		{"model": "procdiff-small", "prompt": "a forest", "num_inference_steps": 4, "response_format": "b64_json"},
	}
	p := st.Start(t, f.server, []string{small})
	for _, pl := range payloads {
		body, _ := json.Marshal(pl)
		if r := imageRequest(t, p.URL, string(body)); r.Status != 200 {
			t.Fatalf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	if err := p.Stop(t); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, p)[p.StartupRecords:]
	if len(recs) != len(payloads) {
		t.Fatalf("%d records for %d requests", len(recs), len(payloads))
	}
	seen := map[string]bool{}
	for i, pl := range payloads {
		want, err := workload.ImagePayloadSHA(pl, gen.ImageSpec())
		if err != nil || recs[i].InputSHA256 != want {
			t.Errorf("payload %v: recorded input_sha256 %s, verify derives %s (%v)", pl, recs[i].InputSHA256, want, err)
		}
		seen[want] = true
	}
	if len(seen) != len(payloads) {
		t.Errorf("distinct payloads share an identity: %v", seen)
	}
}
