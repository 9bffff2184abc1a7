package target

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
)

// defaultChunkMS is the chunk TRTMC's serving base request takes when a testcase declares none
// (apps/benchmark/trtmc_benchmark/task_adapters.py @0dd9052f: int(case.get("chunk_ms", 160))).
const defaultChunkMS = 160

// CheckpointValues are one checkpoint's placeholder values: {profile}, {testcase}, {family_dir},
// {bundle_name}, {work}, and the testcase's own native-run settings {cfg_scale} and {max_tokens},
// empty when it declares none (optional flags then leave them out; see Expand), and
// {chunk_ms}, the streaming chunk the server's worker uses, and {chunk_samples}: sample_rate *
// chunk_ms / 1000 samples of the testcase's clip (benchmark_worker.cpp @08b8f334 run_transcribe;
// the family test passes the same --chunk-samples), empty when the clip cannot be read; a request
// that names its own clip's {sample_rate} gets that clip's chunk (NativeArgs), as the worker
// sizes it per request. The run and `qual plan` both render commands from these, so the plan
// shows what the run executes. {language} is filled from the served base request at run time.
func (t *Target) CheckpointValues(m *manifest.Manifest, tc manifest.Testcase, work string) map[string]string {
	familyDir := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(m.Path)))) // families/<dir>/tests/manifests
	if t.Layout == "tests/e2e" {
		familyDir = filepath.Base(filepath.Dir(filepath.Dir(m.Path))) // tests/e2e/models/<dir>/manifests
	}
	v := map[string]string{"profile": m.Name, "testcase": tc.Name, "family_dir": familyDir,
		"bundle_name": m.Bundle, "work": work, "cfg_scale": "", "max_tokens": "", "chunk_samples": "", "language": ""}
	if tc.CfgScale != nil {
		v["cfg_scale"] = strconv.FormatFloat(*tc.CfgScale, 'g', -1, 64)
	}
	if tc.MaxNewTokens != nil {
		v["max_tokens"] = strconv.Itoa(*tc.MaxNewTokens)
	}
	chunk := defaultChunkMS
	if tc.ChunkMS != nil {
		chunk = *tc.ChunkMS
	}
	v["chunk_ms"] = strconv.Itoa(chunk)
	if rate := clipRate(m, tc); rate > 0 {
		v["chunk_samples"] = chunkSamples(rate, chunk)
	}
	return v
}

// chunkSamples is the worker's streaming chunk: max(1, sample_rate * chunk_ms / 1000) samples.
func chunkSamples(rate, chunkMS int) string { return strconv.Itoa(max(1, rate*chunkMS/1000)) }

// requestChunk sizes {chunk_samples} for a request's own clip when it names its {sample_rate}.
func requestChunk(values map[string]string) {
	rate, err1 := strconv.Atoi(values["sample_rate"])
	chunk, err2 := strconv.Atoi(values["chunk_ms"])
	if err1 == nil && err2 == nil && rate > 0 {
		values["chunk_samples"] = chunkSamples(rate, chunk)
	}
}

// clipRate is the sample rate of the testcase's own clip (resolved against the manifest
// directory's parent, as TRTMC's task_adapters _model_asset does), 0 when there is none.
func clipRate(m *manifest.Manifest, tc manifest.Testcase) int {
	if tc.InputAudio == "" {
		return 0
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(m.Path)), tc.InputAudio))
	if err != nil {
		return 0
	}
	a, err := audio.DecodeWAV(data)
	if err != nil {
		return 0
	}
	return a.SampleRate
}
