package workload

import (
	"encoding/base64"
	"os"
	"reflect"
	"testing"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// decodedSHA is the identity the server records for an uploaded clip (task.Audio.SHA256).
func decodedSHA(t *testing.T, b64 string) (string, int, int) {
	t.Helper()
	wav, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	a, err := audio.DecodeWAV(wav)
	if err != nil {
		t.Fatal(err)
	}
	return a.SHA256(), len(a.Samples), len(wav)
}

func TestASRFreshVariantFlipsOneSampleBit(t *testing.T) {
	w, _ := Get("asr")
	inputs, err := w.Inputs(repoRoot(), manifest.Manifest{}, manifest.Testcase{Dataset: "golden/asr/sphinx-en-us/dataset.json"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wav, err := os.ReadFile(inputs[0].HostPath)
	if err != nil {
		t.Fatal(err)
	}
	payload := asrPair(t, wav, "x", "x", "").Client.Payload
	orig := base64.StdEncoding.EncodeToString(wav)
	sha, samples, size := decodedSHA(t, orig)
	seen := map[string]bool{sha: true}
	for i := range 8 {
		v, err := w.FreshVariant(payload, i)
		if err != nil {
			t.Fatal(err)
		}
		b64 := v["file"].(map[string]any)["b64_data"].(string)
		got, n, bytes := decodedSHA(t, b64)
		if seen[got] || n != samples || bytes != size {
			t.Fatalf("variant %d: sha %s seen %v, %d samples (want %d), %d bytes (want %d)", i, got, seen[got], n, samples, bytes, size)
		}
		seen[got] = true
		if differing(t, orig, b64) != 1 {
			t.Fatalf("variant %d differs from the clip in %d bytes, want 1", i, differing(t, orig, b64))
		}
	}
	if payload["file"].(map[string]any)["b64_data"] != orig {
		t.Fatal("a variant changed the recorded payload")
	}
}

func differing(t *testing.T, a, b string) int {
	x, _ := base64.StdEncoding.DecodeString(a)
	y, _ := base64.StdEncoding.DecodeString(b)
	n := 0
	for i := range x {
		if x[i] != y[i] {
			n++
		}
	}
	return n
}

func TestAudioQAFreshVariantKeepsTheQuestion(t *testing.T) {
	w, _ := Get("audioqa")
	wav := audio.EncodePCM16([]int16{1, 2, 3, 4, 5, 6, 7, 8}, 1, 16000)
	p := qaPair("q1", "what is the number", wav, "", "", "")
	v, err := w.FreshVariant(p.Client.Payload, 2)
	if err != nil {
		t.Fatal(err)
	}
	q0, sha0, err := ChatInput(p.Client.Payload)
	if err != nil {
		t.Fatal(err)
	}
	q1, sha1, err := ChatInput(v)
	if err != nil || q1 != q0 || sha1 == sha0 {
		t.Fatalf("variant: question %q (want %q), clip sha %s (input %s), %v", q1, q0, sha1, sha0, err)
	}
	if _, err := w.FreshVariant(map[string]any{"messages": []any{}}, 0); err == nil {
		t.Fatal("a chat payload without audio gave a variant")
	}
}

func TestT2IFreshVariantChangesOnlyTheSeed(t *testing.T) {
	w, _ := Get("t2i")
	payload := map[string]any{"model": "procdiff-base", "prompt": "a red square", "size": "64x64", "seed": 6.0, "response_format": "b64_json"}
	v, err := w.FreshVariant(payload, 3)
	if err != nil {
		t.Fatal(err)
	}
	if v["seed"] != 10.0 || payload["seed"] != 6.0 {
		t.Fatalf("seed %v (want 10), recorded payload's %v", v["seed"], payload["seed"])
	}
	v["seed"] = 6.0
	if !reflect.DeepEqual(v, payload) {
		t.Fatalf("variant %v differs from %v beyond the seed", v, payload)
	}
	if _, err := w.FreshVariant(map[string]any{"prompt": "x"}, 0); err == nil {
		t.Fatal("a payload without a seed gave a variant")
	}
}

func TestNativeTaskMS(t *testing.T) {
	if ms := NativeTaskMS("loading\n{\"text\":\"a\",\"public_task_call_wall_ms\":12.5}"); ms == nil || *ms != 12.5 {
		t.Fatalf("got %v", ms)
	}
	if ms := NativeTaskMS(`{"text":"a"}`); ms != nil {
		t.Fatalf("no time printed, got %v", *ms)
	}
}
