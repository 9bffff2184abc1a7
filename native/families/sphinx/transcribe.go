package sphinx

import (
	"context"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Transcribe implements task.Transcriber: one whole-clip decode on a pooled decoder. Every call
// starts a fresh utterance with batch cepstral-mean normalization, so the result does not
// depend on what the decoder processed before (TestTranscriptsIndependentOfHistory).
func (m *model) Transcribe(ctx context.Context, a task.Audio, cfg task.TranscribeConfig) (task.Transcript, error) {
	if err := audio.Validate(a, m.AudioSpec()); err != nil {
		return task.Transcript{}, err
	}
	if cfg.Language != "" && cfg.Language != m.settings.Language {
		return task.Transcript{}, task.Invalid("unsupported_language", "language %q is not supported by %s (only %q)", cfg.Language, m.name, m.settings.Language)
	}
	pcm := audio.ToPCM16(a.Samples)
	var d *decoder
	select {
	case d = <-m.pool:
	case <-ctx.Done():
		return task.Transcript{}, fmt.Errorf("transcribe: waiting for a decoder: %w", ctx.Err())
	}
	defer func() { m.pool <- d }()
	text, err := d.decodeWhole(pcm)
	if err != nil {
		return task.Transcript{}, fmt.Errorf("transcribe with %s: %w", m.name, err)
	}
	return task.Transcript{Text: text}, nil
}
