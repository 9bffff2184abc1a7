package workload

import (
	"fmt"
	"maps"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// PlannedNative is what a run's native_run would be given for input in, before any request is
// sent (qual plan): the values Request reads back from the request AIPerf sends for it. An
// images request is the row's prompt with the load's extra inputs and the row's own extras,
// which is how AIPerf composes its body.
func PlannedNative(w Workload, in Input, l Load) (map[string]string, error) {
	switch w.Capability() {
	case task.TextToImage:
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
	case task.AudioTextToText:
		return map[string]string{"input": in.ContainerPath, "question": in.Question}, nil
	}
	return map[string]string{"input": in.ContainerPath}, nil
}
