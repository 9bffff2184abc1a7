package whisper

import (
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// UpstreamTranscripts implements family.UpstreamTranscriber: faster-whisper's transcripts of the
// clips (GenerateReferences).
func (f Family) UpstreamTranscripts(b *bundle.Bundle, clips []dataset.Materialized, workDir string) (any, error) {
	return GenerateReferences(f.Host, b, clips, workDir)
}

// ExtractModel implements family.ModelExtractor: the model files and the settings they were
// converted with.
func (Family) ExtractModel(b *bundle.Bundle, dir string) (map[string]any, error) {
	s, err := ExtractModel(b, dir)
	if err != nil {
		return nil, err
	}
	return map[string]any{"settings": s}, nil
}
