// Package task is the reference runtime's Task ABI, shaped like TRTMC's: a loaded model exposes
// the Tasks it implements by name, each with discoverable controls, and callers ask for a
// capability. A model that lacks it answers with UnsupportedCapabilityError, never a guess from
// its name or a declared mode.
package task

import (
	"context"
	"fmt"
	"image"
)

// Name is a Task (capability) name, as in TRTMC's ABI.
type Name string

// Task names the suite knows; a model may implement any subset.
const (
	SpeechTranscription Name = "speech_transcription"
	TextToImage         Name = "text_to_image"
	AudioTextToText     Name = "audio_text_to_text"
)

// Control is one discoverable input of a Task.
type Control struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // string, int, float, bool, audio, enum
	Default     string `json:"default,omitempty"`
	Description string `json:"description"`
}

// Info describes one Task a model implements.
type Info struct {
	Name     Name      `json:"name"`
	Controls []Control `json:"controls"`
}

// Model is a loaded bundle.
type Model interface {
	// Tasks lists what the model implements, in a stable order.
	Tasks() []Info
	// Task returns the implementation of a Task, or UnsupportedCapabilityError.
	Task(name Name) (any, error)
	Close() error
}

// UnsupportedCapabilityError says a model does not implement a Task.
type UnsupportedCapabilityError struct {
	Model string
	Task  Name
	Has   []Name
}

func (e *UnsupportedCapabilityError) Error() string {
	return fmt.Sprintf("model %q does not implement task %q (it implements %v)", e.Model, e.Task, e.Has)
}

// Lookup asks model for a Task and checks that it has the Go interface T.
func Lookup[T any](m Model, modelName string, name Name) (T, error) {
	var zero T
	impl, err := m.Task(name)
	if err != nil {
		return zero, err
	}
	t, ok := impl.(T)
	if !ok {
		return zero, fmt.Errorf("model %q: task %q has type %T, not the %s interface", modelName, name, impl, name)
	}
	return t, nil
}

// Names lists the Task names of infos.
func Names(infos []Info) []Name {
	out := make([]Name, len(infos))
	for i, in := range infos {
		out[i] = in.Name
	}
	return out
}

// Audio is an interleaved float32 view, as TRTMC's speech_transcription takes it.
type Audio struct {
	Samples    []float32
	Channels   int
	SampleRate int
}

// Seconds is the clip's duration.
func (a Audio) Seconds() float64 {
	if a.Channels == 0 || a.SampleRate == 0 {
		return 0
	}
	return float64(len(a.Samples)/a.Channels) / float64(a.SampleRate)
}

// AudioSpec is what a transcription family accepts; the transport validates against it before
// the Task is called, and the Task validates again.
type AudioSpec struct {
	SampleRate int     `json:"sample_rate"`
	Channels   int     `json:"channels"`
	Format     string  `json:"sample_format"` // the family's native sample format
	MaxSeconds float64 `json:"max_seconds"`
}

// TranscribeConfig carries the Task's optional controls.
type TranscribeConfig struct {
	Language string
}

// Transcript is a whole-clip transcription.
type Transcript struct {
	Text string `json:"text"`
}

// Transcriber is the speech_transcription Task. Transcribe must not keep audio.Samples (or a
// slice of it) after it returns: the server lends the samples from a pool and takes them back
// once the call has returned (server/transcriptions.go; server/pool_test.go checks the server
// side).
type Transcriber interface {
	AudioSpec() AudioSpec
	Transcribe(ctx context.Context, audio Audio, cfg TranscribeConfig) (Transcript, error)
}

// ImageRequest carries the text_to_image controls.
type ImageRequest struct {
	Prompt         string
	NegativePrompt string
	Width, Height  int
	Steps          int
	Guidance       float64
	Seed           int64
	Count          int
}

// ImageSpec is what an image family accepts.
type ImageSpec struct {
	Sizes          [][2]int `json:"sizes"`
	MinSteps       int      `json:"min_steps"`
	MaxSteps       int      `json:"max_steps"`
	MinGuidance    float64  `json:"min_guidance"`
	MaxGuidance    float64  `json:"max_guidance"`
	MaxCount       int      `json:"max_count"`
	DefaultSteps   int      `json:"default_steps"`
	DefaultGuide   float64  `json:"default_guidance"`
	Precision      string   `json:"precision"`
	TrainedModel   bool     `json:"trained_model"`
	ModelStatement string   `json:"model_statement"`
}

// ImageGenerator is the text_to_image Task.
type ImageGenerator interface {
	ImageSpec() ImageSpec
	GenerateImage(ctx context.Context, req ImageRequest) ([]*image.NRGBA, error)
}

// InvalidInputError is an input the Task cannot honor; Code is stable for HTTP errors.
type InvalidInputError struct {
	Code    string
	Message string
}

func (e *InvalidInputError) Error() string { return e.Message }

// Invalid builds an InvalidInputError.
func Invalid(code, format string, args ...any) error {
	return &InvalidInputError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// TextGeneration is text-only chat. No reference family implements it; it is named so that a
// text-only chat request is refused by capability like any other.
const TextGeneration Name = "text_generation"

// AudioQuestion is one audio_text_to_text input: a clip and a question about it.
type AudioQuestion struct {
	Audio     Audio
	Question  string
	MaxTokens int
}

// AudioAnswerer is the audio_text_to_text Task (audio question answering).
type AudioAnswerer interface {
	AudioSpec() AudioSpec
	Answer(ctx context.Context, q AudioQuestion) (string, error)
}
