package sphinx

import (
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
)

// UpstreamTranscripts implements family.UpstreamTranscriber: pocketsphinx_batch's transcripts of
// the clips (GenerateReferences).
func (Family) UpstreamTranscripts(b *bundle.Bundle, clips []dataset.Materialized, workDir string) (any, error) {
	return GenerateReferences(b, clips, workDir)
}

// ExtractModel implements family.ModelExtractor: the model files and the decoder arguments
// pocketsphinx_batch needs with them.
func (Family) ExtractModel(b *bundle.Bundle, dir string) (map[string]any, error) {
	args, err := ExtractModel(b, dir)
	if err != nil {
		return nil, err
	}
	return map[string]any{"decoder_args": args}, nil
}
