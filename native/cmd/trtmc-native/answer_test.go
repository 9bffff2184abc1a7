package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLIAnswerAndRefusal(t *testing.T) {
	bin := buildCLI(t)
	bundlePath := filepath.Join(t.TempDir(), "qa.bundle")
	if out, code := run(t, bin, "build", "--manifest", "native/families/sphinxqa/manifests/sphinxqa-an4-l0.json", "-o", bundlePath); code != 0 {
		t.Fatalf("build exit %d: %s", code, out)
	}
	clip := "/usr/share/pocketsphinx/test/data/cards/004.wav"
	out, code := run(t, bin, "answer", bundlePath, "--input", clip, "--question", "What is the sum of the digits spoken?", "--json")
	var ans AnswerOutput
	if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
		t.Fatalf("answer exit %d: %s", code, out)
	}
	if ans.Answer != "10" || ans.PublicTaskMS <= 0 || len(ans.BundleSHA256) != 64 || len(ans.InputSHA256) != 64 || ans.Profile != "sphinxqa-an4-l0" {
		t.Fatalf("answer = %+v", ans)
	}
	if out, code := run(t, bin, "answer", bundlePath, "--input", clip, "--question", "Which rank is named twice?"); code != 1 || !strings.Contains(out, "unsupported_question") {
		t.Fatalf("undeclared question: exit %d: %s", code, out)
	}
	if out, code := run(t, bin, "answer", bundlePath, "--question", "What is the last word?"); code != 2 {
		t.Fatalf("missing --input: exit %d: %s", code, out)
	}
	if out, code = run(t, bin, "inspect", bundlePath); code != 0 || !strings.Contains(out, `"audio_text_to_text"`) || !strings.Contains(out, "cascade reference: PocketSphinx + templated reader") {
		t.Fatalf("inspect: exit %d: %s", code, out)
	}
}
