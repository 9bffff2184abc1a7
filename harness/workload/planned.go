package workload

import (
	"fmt"
	"maps"
	"strconv"
)

// PlannedNative is what a run's native_run would be given for input in, before any request is
// sent (qual plan): the values Request reads back from the request AIPerf sends for it.
func PlannedNative(w Workload, in Input, l Load) (map[string]string, error) {
	return w.PlannedNative(in, l)
}

// PlannedNative: a transcription's native run is given the clip.
func (asr) PlannedNative(in Input, _ Load) (map[string]string, error) {
	return clipNative(in), nil
}

// clipNative is a clip's native-run values: its path in the container and, when decoded, its
// sample rate, from which a streaming twin's chunk is sized as TRTMC's worker sizes it for this
// very clip (benchmark_worker.cpp @08b8f334 run_transcribe: audio.sample_rate * chunk_ms / 1000).
func clipNative(in Input) map[string]string {
	v := map[string]string{"input": in.ContainerPath}
	if in.SampleRate > 0 {
		v["sample_rate"] = strconv.Itoa(in.SampleRate)
	}
	return v
}

// PlannedNative: an audio question's native run is given the clip and the question.
func (audioQA) PlannedNative(in Input, _ Load) (map[string]string, error) {
	return map[string]string{"input": in.ContainerPath, "question": in.Question}, nil
}

// PlannedNative: an images request is the row's prompt with the load's extra inputs and the
// row's own extras, which is how AIPerf composes its body.
func (t2i) PlannedNative(in Input, l Load) (map[string]string, error) {
	payload := map[string]any{"prompt": in.Prompt.Prompt}
	maps.Copy(payload, l.ExtraInputs)
	for _, row := range l.Rows {
		if extra, ok := row["extra"].(map[string]any); ok && row["session_id"] == in.ID {
			maps.Copy(payload, extra)
		}
	}
	width, height, err := requestedSize(payload)
	if err != nil {
		return nil, fmt.Errorf("planned native run: %w", err)
	}
	return imageNativeValues(payload, width, height), nil
}
