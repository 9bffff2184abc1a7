package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Stream              bool            `json:"stream"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	StreamOptions       json.RawMessage `json:"stream_options"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type chatPart struct {
	Type       string `json:"type"`
	Text       string `json:"text"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
	ImageURL json.RawMessage `json:"image_url"`
}

// chatInput is what the messages ask for: the question text and any audio.
type chatInput struct {
	text   []string
	audios []string // base64 WAV payloads
	images int
}

// parseChatContent reads OpenAI message content: a string, or an array of typed parts.
func parseChatContent(raw json.RawMessage, in *chatInput) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return badRequest(contract.CodeMissingField, "every message needs content")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return badRequest(contract.CodeInvalidValue, "content: %v", err)
		}
		in.text = append(in.text, s)
		return nil
	}
	var parts []chatPart
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&parts); err != nil {
		return badRequest(contract.CodeInvalidValue, "content must be a string or an array of parts: %v", err)
	}
	for i, p := range parts {
		switch p.Type {
		case "text":
			in.text = append(in.text, p.Text)
		case "input_audio":
			if p.InputAudio == nil || p.InputAudio.Data == "" {
				return badRequest(contract.CodeMissingField, "content part %d: input_audio.data is required", i)
			}
			if f := strings.ToLower(p.InputAudio.Format); f != "wav" {
				return badRequest(audio.CodeUnsupportedAudio, "content part %d: audio format %q is not supported (wav only)", i, p.InputAudio.Format)
			}
			in.audios = append(in.audios, p.InputAudio.Data)
		case "image_url":
			in.images++
		default:
			return badRequest(contract.CodeInvalidValue, "content part %d has unknown type %q", i, p.Type)
		}
	}
	return nil
}

func (s *Server) chat(x *exchange) (*reply, error) {
	var req chatRequest
	if err := decodeStrict(x.r.Body, &req); err != nil {
		return nil, err
	}
	m, err := s.lookupModel(x, req.Model)
	if err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 {
		return nil, badRequest(contract.CodeMissingField, "field \"messages\" must hold at least one message")
	}
	var in chatInput
	for _, msg := range req.Messages {
		if err := parseChatContent(msg.Content, &in); err != nil {
			return nil, err
		}
	}
	// Dispatch by what the request needs, never by what the model is called.
	if len(in.audios) == 0 {
		_, err := m.model.Task(task.TextGeneration)
		if err == nil {
			err = fmt.Errorf("model %s declares %s, which this server does not route", m.name, task.TextGeneration)
		}
		return nil, err
	}
	qa, err := capability[task.AudioAnswerer](m, task.AudioTextToText)
	if err != nil {
		return nil, err
	}
	return s.answerAudio(x, m, qa, req, in)
}

func (s *Server) answerAudio(x *exchange, m *servedModel, qa task.AudioAnswerer, req chatRequest, in chatInput) (*reply, error) {
	if req.Stream {
		return nil, badRequest(contract.CodeUnsupportedOption, "stream cannot be honored: answers are returned whole")
	}
	if len(in.audios) != 1 || in.images > 0 {
		return nil, badRequest(contract.CodeInvalidValue, "audio question answering takes exactly one audio part and no images (got %d audio, %d image)", len(in.audios), in.images)
	}
	if len(in.text) == 0 {
		return nil, badRequest(contract.CodeMissingField, "audio question answering needs a text part holding the question")
	}
	if n := decodedBase64Len(in.audios[0]); int64(n) > s.cfg.MaxAudioBytes {
		return nil, newError(http.StatusRequestEntityTooLarge, contract.CodeRequestTooLarge, "input_audio of %d bytes is over the audio limit of %d", n, s.cfg.MaxAudioBytes)
	}
	wav, err := base64.StdEncoding.DecodeString(in.audios[0])
	if err != nil {
		return nil, badRequest(audio.CodeInvalidAudio, "input_audio.data is not base64: %v", err)
	}
	// DecodeWAV's clip and error, hashed from the PCM16 bytes themselves (no second pass).
	clip, clipSHA, err := audio.NewStream(len(wav), nil).Finish(wav)
	if err != nil {
		return nil, err
	}
	question := strings.TrimSpace(strings.Join(in.text, "\n"))
	x.rec.InputSHA256 = task.AudioQuestionSHA256(clipSHA, question) // what `trtmc-native answer --json` prints
	if err := audio.Validate(clip, qa.AudioSpec()); err != nil {
		return nil, err
	}
	q := task.AudioQuestion{Audio: clip, Question: question}
	if req.MaxCompletionTokens != nil {
		q.MaxTokens = *req.MaxCompletionTokens
	} else if req.MaxTokens != nil {
		q.MaxTokens = *req.MaxTokens
	}
	var answer string
	err = s.callTask(x, m, string(task.AudioTextToText), func(ctx context.Context) error {
		var terr error
		answer, terr = qa.Answer(ctx, q)
		return terr
	})
	if err != nil {
		return nil, err
	}
	x.rec.Output = &contract.RecordOutput{Text: answer, AudioSeconds: clip.Seconds()}
	return &reply{status: http.StatusOK, json: &contract.ChatCompletionResponse{
		ID: "chatcmpl-" + x.id, Object: "chat.completion", Model: m.name,
		Choices: []contract.ChatChoice{{Index: 0, FinishReason: "stop",
			Message: contract.ChatMessage{Role: "assistant", Content: answer}}},
	}}, nil
}

// decodedBase64Len is how many bytes padded standard base64 of this length decodes to.
func decodedBase64Len(b64 string) int {
	n := base64.StdEncoding.DecodedLen(len(b64))
	for i := len(b64) - 1; i >= 0 && i >= len(b64)-2 && b64[i] == '='; i-- {
		n--
	}
	return n
}
