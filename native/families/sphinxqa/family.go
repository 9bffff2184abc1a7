// Package sphinxqa is the reference target's audio question-answering family: a CASCADE
// REFERENCE, PocketSphinx + templated reader, NOT an audio-language model. The sphinx family's
// recognizer transcribes the clip (same manifests' model files, same decoder code), then the
// templated reader (package reader) answers one of a closed, declared set of questions over the
// transcript. A question outside that set is refused with a stable code, never guessed at.
// It exists so that stage 9's serving path (chat with input_audio, AIPerf, join, identity,
// timing) runs for real on a CPU; its answers are only as good as the transcript.
package sphinxqa

import (
	"context"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinx"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/descriptor"
	"github.com/trtmc-qual/trtmc-qual/native/families/sphinxqa/reader"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Name is the family's registry name.
const Name = descriptor.Name

// Statement is what every manifest, bundle and report row of the family says it is.
const Statement = "cascade reference: PocketSphinx + templated reader, not an audio-language model"

// Family builds, loads and gates sphinxqa bundles.
type Family struct{}

// Name implements family.Family.
func (Family) Name() string { return Name }

// Capabilities implements family.Family: only audio_text_to_text. The recognizer inside is not
// offered as speech_transcription, so stage 3 never counts a sphinxqa bundle as an ASR model.
func (Family) Capabilities() []task.Name { return descriptor.Descriptor().Capabilities }

// Build packs exactly what the sphinx family would for the same build settings, and records the
// reader version and the statement. A manifest without the statement is refused, so no bundle
// of this family can be presented as anything else.
func (Family) Build(m manifest.Manifest) (bundle.Header, map[string][]byte, error) {
	if s, _ := m.Build["statement"].(string); s != Statement {
		return bundle.Header{}, nil, fmt.Errorf("manifest %s: build.statement must be %q, got %q", m.Name, Statement, s)
	}
	h, sections, err := sphinx.Family{}.Build(m)
	if err != nil {
		return bundle.Header{}, nil, err
	}
	h.Family, h.Backend = Name, "pocketsphinx+"+reader.Version
	h.Settings["reader"], h.Settings["statement"] = reader.Version, Statement
	return h, sections, nil
}

// Load starts the sphinx recognizer on the bundle's model files and puts the reader behind it.
func (Family) Load(b *bundle.Bundle, opts family.LoadOptions) (task.Model, error) {
	if v, _ := b.Header.Settings["reader"].(string); v != reader.Version {
		return nil, fmt.Errorf("load %s: bundle was built for reader %q, this runtime has %q", b.Header.Profile, v, reader.Version)
	}
	inner, err := sphinx.Family{}.Load(b, opts)
	if err != nil {
		return nil, err
	}
	tr, err := task.Lookup[task.Transcriber](inner, b.Header.Profile, task.SpeechTranscription)
	if err != nil {
		inner.Close()
		return nil, fmt.Errorf("load %s: %w", b.Header.Profile, err)
	}
	return &model{name: b.Header.Profile, inner: inner, asr: tr}, nil
}

// model is a loaded sphinxqa bundle.
type model struct {
	name  string
	inner task.Model
	asr   task.Transcriber
}

func (m *model) Tasks() []task.Info {
	spec := m.asr.AudioSpec()
	return []task.Info{{Name: task.AudioTextToText, Controls: []task.Control{
		{Name: "audio", Kind: "audio", Description: fmt.Sprintf("whole clip, %d Hz mono, at most %.0f s", spec.SampleRate, spec.MaxSeconds)},
		{Name: "question", Kind: "string", Description: "one of the declared templated questions (" + Statement + "); any other is refused with " + reader.CodeUnsupportedQuestion},
	}}}
}

func (m *model) Task(name task.Name) (any, error) {
	if name == task.AudioTextToText {
		return m, nil
	}
	return nil, &task.UnsupportedCapabilityError{Model: m.name, Task: name, Has: task.Names(m.Tasks())}
}

func (m *model) Close() error { return m.inner.Close() }

// AudioSpec implements task.AudioAnswerer: the recognizer's.
func (m *model) AudioSpec() task.AudioSpec { return m.asr.AudioSpec() }

// Answer implements task.AudioAnswerer. The question is parsed first, so a refused question
// costs no decode; then the clip is transcribed and the reader answers over the transcript.
// MaxTokens is not a control here: every answer is a few words at most.
func (m *model) Answer(ctx context.Context, q task.AudioQuestion) (string, error) {
	parsed, err := reader.Parse(q.Question)
	if err != nil {
		return "", err
	}
	tr, err := m.asr.Transcribe(ctx, q.Audio, task.TranscribeConfig{})
	if err != nil {
		return "", err
	}
	return reader.Answer(parsed, tr.Text), nil
}
