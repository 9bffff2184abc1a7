package target

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The TRTMC target serves the gated testcase by name (cli.py @1797a247 serves the profile's first
// without --testcase) through the module whose entry point was read (cli.py's __main__ guard), and
// its native transcription twin takes the language the HTTP side sends, when there is one.
func TestTRTMCTargetServesTheTestcaseAndPassesTheLanguage(t *testing.T) {
	tg, err := Read(filepath.Join(repoRoot(), "suites", "targets", "trtmc.yaml"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]string{"serve_python": "python3", "root": "/r", "profile": "whisper-tiny-fp16", "testcase": "whisper-tiny-fp16-asr",
		"bundle_name": "w.bundle", "runtime_root": "/r/build", "worker": "/r/build/trtmc_benchmark_worker"}
	serve, err := Expand(tg.Server.Command, v)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(serve, "--testcase"); i < 0 || serve[i+1] != "whisper-tiny-fp16-asr" || !slices.Contains(serve, "trtmc_perf_serving.cli") {
		t.Errorf("serve: %v", serve)
	}
	for _, task := range []string{"transcription", "speech_transcription", "transcription_streaming"} {
		for lang, want := range map[string]bool{"en": true, "": false} {
			w := map[string]string{"trtmc_binary": "/r/build/trtmc", "bundle": "/bundles/w.bundle", "runtime_root": "/r/build",
				"input": "/inputs/a.wav", "max_tokens": "224", "language": lang, "chunk_samples": "17920"}
			args, err := Expand(tg.NativeRun[task], w)
			if err != nil {
				t.Fatal(err)
			}
			flag := "--source-language"
			if task == "transcription_streaming" { // transcribe-streaming spells it --language (cli.cpp @022e18f7)
				flag = "--language"
			}
			i := slices.Index(args, flag)
			if (i >= 0) != want || (want && args[i+1] != lang) {
				t.Errorf("%s, language %q: %s", task, lang, strings.Join(args, " "))
			}
		}
	}
}
