package contract

// Typed response bodies of the serving routes. Every JSON body carries trtmc_timing; the
// server fills it through SetTiming just before encoding, so a handler never forgets it.

// Timed is embedded in every JSON body: the trtmc_timing member.
type Timed struct {
	Timing *Timing `json:"trtmc_timing,omitempty"`
}

// SetTiming sets the body's trtmc_timing.
func (t *Timed) SetTiming(v Timing) { t.Timing = &v }

// TimedBody is any response body that carries trtmc_timing.
type TimedBody interface{ SetTiming(Timing) }

// ErrorBody is the OpenAI-style error answer with its stable code.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
	Timed
}

// ErrorDetail is the "error" member of ErrorBody.
type ErrorDetail struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
	// Param names the request field at fault, as OpenAI spells it (null when no one field is).
	Param *string `json:"param"`
}

// TranscriptionResponse is /v1/audio/transcriptions with response_format json.
type TranscriptionResponse struct {
	Text string `json:"text"`
	Timed
}

// VerboseTranscriptionResponse is /v1/audio/transcriptions with response_format verbose_json.
type VerboseTranscriptionResponse struct {
	Task     string                 `json:"task"`
	Language string                 `json:"language"`
	Duration float64                `json:"duration"`
	Text     string                 `json:"text"`
	Model    string                 `json:"model"`
	Segments []TranscriptionSegment `json:"segments"`
	Timed
}

// TranscriptionSegment is one timed stretch of a verbose_json transcript (OpenAI's segment
// object, without the decoder statistics a Task does not report).
type TranscriptionSegment struct {
	ID          int     `json:"id"`
	Seek        int     `json:"seek"`
	Start       float64 `json:"start"`
	End         float64 `json:"end"`
	Text        string  `json:"text"`
	Temperature float64 `json:"temperature"`
}

// ChatInputAudio is the input_audio member of a chat content part
// ({"type":"input_audio","input_audio":{...}}): a base64 audio file and its format ("wav").
// The server reads it and verify reads it back from the payload AIPerf sent.
type ChatInputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

// ImagesRequest is the body of /v1/images/generations. Pointers tell "absent" from zero: what
// a client leaves out is the family's default (trtmc-server fills it; qual verify re-derives
// the filled request from a payload to check a record's input_sha256).
type ImagesRequest struct {
	Prompt         *string  `json:"prompt"`
	Model          string   `json:"model"`
	Size           string   `json:"size"`
	N              *int     `json:"n"`
	Seed           *int64   `json:"seed"`
	Steps          *int     `json:"num_inference_steps"`
	Guidance       *float64 `json:"guidance_scale"`
	NegativePrompt string   `json:"negative_prompt"`
	ResponseFormat string   `json:"response_format"`
	Stream         bool     `json:"stream"`
	// OpenAI parameters that change nothing at their defaults (the server refuses other values).
	User    string `json:"user"`
	Quality string `json:"quality"`
	Style   string `json:"style"`
}

// ImagesResponse is /v1/images/generations.
type ImagesResponse struct {
	Created int64       `json:"created"`
	Data    []ImageData `json:"data"`
	Size    string      `json:"size,omitempty"`
	Model   string      `json:"model,omitempty"`
	Timed
}

// ImageData is one generated image: inline PNG (response_format b64_json) or an artifact url
// with its expiry (response_format url).
type ImageData struct {
	B64JSON   string `json:"b64_json,omitempty"`
	URL       string `json:"url,omitempty"`
	ExpiresAt int64  `json:"expires_at,omitempty"`
}

// ChatCompletionResponse is /v1/chat/completions (non-streaming).
type ChatCompletionResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"` // Unix seconds
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Timed
}

// ChatChoice is one choice of a chat completion.
type ChatChoice struct {
	Index        int         `json:"index"`
	FinishReason string      `json:"finish_reason"`
	Message      ChatMessage `json:"message"`
}

// ChatMessage is an answered message.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ModelList is /v1/models.
type ModelList struct {
	Object string       `json:"object"`
	Data   []ModelEntry `json:"data"`
	Timed
}

// ModelEntry is one model of /v1/models, and the body of /v1/models/{id}.
type ModelEntry struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"` // Unix seconds: when the server loaded the model's bundle
	OwnedBy string `json:"owned_by"`
	Timed
}

// Health is /health/live and /health/ready.
type Health struct {
	Status string   `json:"status"`
	Time   string   `json:"time,omitempty"`
	Models []string `json:"models,omitempty"`
	Timed
}

// ServingInfo is the body of /v1/serving/info.
type ServingInfo struct {
	Server string      `json:"server"`
	Ready  bool        `json:"ready"`
	Models []ModelInfo `json:"models"`
	Timed
}

// ModelInfo is one model in /v1/serving/info.
type ModelInfo struct {
	ID           string     `json:"id"`
	BundlePath   string     `json:"bundle_path"`
	BundleSHA256 string     `json:"bundle_sha256"`
	BundleBytes  int64      `json:"bundle_bytes"`
	Family       string     `json:"family"`
	Task         string     `json:"task"`
	Backend      string     `json:"backend"`
	Profile      string     `json:"profile"`
	Precision    string     `json:"precision"`
	Checkpoint   string     `json:"checkpoint"`
	Revision     string     `json:"revision"`
	Tasks        []TaskInfo `json:"tasks"`
	Lanes        int        `json:"lanes"`
	QueueDepth   int64      `json:"queue_depth"`
	MaxQueue     int64      `json:"max_queue"`
}

// TaskInfo is one Task a served model implements, with its controls. It mirrors the native
// Task ABI's description on the wire so that this package needs nothing from native/.
type TaskInfo struct {
	Name     string        `json:"name"`
	Controls []TaskControl `json:"controls"`
}

// TaskControl is one declared control of a Task.
type TaskControl struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Default     string `json:"default,omitempty"`
	Description string `json:"description"`
}
