package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	Stream              bool           `json:"stream"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	Temperature         *float64       `json:"temperature"`
	StreamOptions       *streamOptions `json:"stream_options"`
	// OpenAI parameters accepted at the value that changes nothing (checkOptions).
	N              *int            `json:"n"`
	Modalities     []string        `json:"modalities"`
	User           string          `json:"user"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Logprobs       *bool           `json:"logprobs"`
}

// streamOptions is OpenAI's stream_options: nothing streams here, so its fields change
// nothing, but it is read as what it is (an unknown field inside is refused by name).
type streamOptions struct {
	IncludeUsage       *bool `json:"include_usage"`
	IncludeObfuscation *bool `json:"include_obfuscation"`
}

// chatParamsRefused are OpenAI chat parameters this server knows and cannot honour at any
// value: they are refused as unsupported_option naming the parameter, not as unknown_field.
var chatParamsRefused = map[string]bool{"audio": true, "frequency_penalty": true, "function_call": true,
	"functions": true, "logit_bias": true, "metadata": true, "parallel_tool_calls": true, "prediction": true,
	"presence_penalty": true, "prompt_cache_key": true, "reasoning_effort": true, "safety_identifier": true,
	"seed": true, "service_tier": true, "stop": true, "store": true, "tool_choice": true, "tools": true,
	"top_logprobs": true, "top_p": true, "verbosity": true, "web_search_options": true}

// checkOptions refuses every parameter whose value would change the answer, naming it; the
// no-op values (n 1, modalities ["text"], response_format text, logprobs false, any user) pass.
func (req chatRequest) checkOptions() error {
	if req.Stream {
		return unsupported("stream", "stream cannot be honored: answers are returned whole")
	}
	if req.N != nil && *req.N != 1 {
		return unsupported("n", "n=%d cannot be honored: one answer per request (n=1)", *req.N)
	}
	if req.Modalities != nil && (len(req.Modalities) != 1 || req.Modalities[0] != "text") {
		return unsupported("modalities", "modalities %q cannot be honored: answers are text only ([\"text\"])", strings.Join(req.Modalities, ","))
	}
	if len(req.ResponseFormat) > 0 && string(req.ResponseFormat) != "null" {
		var rf struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(req.ResponseFormat, &rf); err != nil || rf.Type != "text" {
			return unsupported("response_format", "response_format %s cannot be honored: answers are plain text ({\"type\":\"text\"})", string(req.ResponseFormat))
		}
	}
	if req.Logprobs != nil && *req.Logprobs {
		return unsupported("logprobs", "logprobs cannot be honored: the answer carries no token probabilities")
	}
	if err := checkTemperature(req.Temperature); err != nil {
		return err
	}
	if err := checkPositive("max_tokens", req.MaxTokens); err != nil {
		return err
	}
	return checkPositive("max_completion_tokens", req.MaxCompletionTokens)
}

// checkPositive refuses a token bound that is not a positive integer. A positive bound is
// passed to the Task, which applies it where it generates tokens (the reference family's answer is a
// few words, under any bound a client sends).
func checkPositive(param string, v *int) error {
	if v != nil && *v <= 0 {
		return badParam(contract.CodeInvalidValue, param, "%s must be positive, got %d", param, *v)
	}
	return nil
}

// checkTemperature is the one rule of every route: the reference models decode greedily, so
// temperature 0 (or none) is what they do and any other value cannot be honoured.
func checkTemperature(t *float64) error {
	if t != nil && *t != 0 {
		return unsupported("temperature", "temperature %v cannot be honored: decoding is deterministic (only 0)", *t)
	}
	return nil
}

// refuseKnown turns an unknown_field that is a known OpenAI parameter into unsupported_option.
func refuseKnown(err error, known map[string]bool) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Code == contract.CodeUnknownField && known[ae.Param] {
		return unsupported(ae.Param, "%s cannot be honored by this server", ae.Param)
	}
	return err
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"` // accepted, changes nothing
}

type chatPart struct {
	Type       string                   `json:"type"`
	Text       string                   `json:"text"`
	InputAudio *contract.ChatInputAudio `json:"input_audio"`
	ImageURL   json.RawMessage          `json:"image_url"`
}

// chatInput is what the messages ask for: the question text and any audio.
type chatInput struct {
	text   []string
	audios []string // base64 WAV payloads
	images int
}

// parseChatContent reads OpenAI message content: a string, or an array of typed parts.
func parseChatContent(raw json.RawMessage, in *chatInput) error {
	if isNullJSON(raw) {
		return badRequest(contract.CodeMissingField, "every message needs content")
	}
	raw = bytes.TrimSpace(raw)
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

// readConversation reads the messages the way a chat client sends them: the last message must
// be the user's, and its text is the question. The clip is that message's audio, or, when it
// has none, the audio of the latest earlier user message that has some (a follow-up question
// about the same clip). System, developer and assistant turns, and the text of earlier user
// turns, are checked for shape and otherwise ignored: the Task answers one question about one
// clip and has no conversation state.
func readConversation(msgs []chatMessage) (chatInput, error) {
	var in chatInput
	last := len(msgs) - 1
	for i, msg := range msgs {
		switch msg.Role {
		case "user":
		case "system", "developer", "assistant":
			if i == last {
				return in, badParam(contract.CodeInvalidValue, "messages", "the last message is the %s's: it must be the user's, whose question is answered", msg.Role)
			}
			if msg.Role == "assistant" && isNullJSON(msg.Content) {
				continue // an assistant turn may carry no content
			}
		case "tool", "function":
			return in, unsupported("messages", "message %d has role %q: this server calls no tools", i, msg.Role)
		default:
			return in, badParam(contract.CodeInvalidValue, "messages", "message %d has role %q (one of system, developer, user, assistant)", i, msg.Role)
		}
		var turn chatInput
		if err := parseChatContent(msg.Content, &turn); err != nil {
			return in, err
		}
		switch {
		case i == last:
			in.text, in.images = turn.text, turn.images
			if len(turn.audios) > 0 {
				in.audios = turn.audios
			}
		case msg.Role == "user" && len(turn.audios) > 0:
			in.audios = turn.audios
		}
	}
	return in, nil
}

func isNullJSON(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func (s *Server) chat(x *exchange) (*reply, error) {
	body, err := splitChatBody(x.r.Body, int(s.cfg.MaxAudioBytes), accountOf(x.r.Body))
	if err != nil {
		return nil, bodyError(err, contract.CodeInvalidJSON, "reading body: %v", err)
	}
	var req chatRequest
	if err := decodeStrictBytes(body.text, &req, accountOf(x.r.Body)); err != nil {
		return nil, refuseKnown(err, chatParamsRefused)
	}
	m, err := s.lookupModel(x, req.Model)
	if err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 {
		return nil, badRequest(contract.CodeMissingField, "field \"messages\" must hold at least one message")
	}
	if err := req.checkOptions(); err != nil {
		return nil, err
	}
	// Each message's content is decoded once more into its parts (parseChatContent).
	if err := accountOf(x.r.Body).take(len(body.text)); err != nil {
		return nil, bodyError(err, contract.CodeInvalidJSON, "%v", err)
	}
	in, err := readConversation(req.Messages)
	if err != nil {
		return nil, err
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
	return s.answerAudio(x, m, qa, req, in, body)
}

func (s *Server) answerAudio(x *exchange, m *servedModel, qa task.AudioAnswerer, req chatRequest, in chatInput, body *chatBody) (*reply, error) {
	if len(in.audios) != 1 || in.images > 0 {
		return nil, badRequest(contract.CodeInvalidValue, "audio question answering takes exactly one audio part and no images (got %d audio, %d image)", len(in.audios), in.images)
	}
	if len(in.text) == 0 {
		return nil, badRequest(contract.CodeMissingField, "audio question answering needs a text part holding the question")
	}
	clipAudio, ok := body.audioFor(in.audios[0])
	if !ok {
		return nil, fmt.Errorf("input_audio.data %.20q is no placeholder of splitChatBody", in.audios[0])
	}
	if clipAudio.err != nil {
		return nil, badRequest(audio.CodeInvalidAudio, "input_audio.data is not base64: %v", clipAudio.err)
	}
	// DecodeWAV's clip and error, hashed from the PCM16 bytes themselves (no second pass); its
	// samples are taken from the body memory.
	acct := accountOf(x.r.Body)
	clip, clipSHA, err := finishClip(audio.NewStream(len(clipAudio.wav), accountedSamples(acct, nil).get), clipAudio.wav, acct)
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
		ID: "chatcmpl-" + x.id, Object: "chat.completion", Created: time.Now().Unix(), Model: m.name,
		Choices: []contract.ChatChoice{{Index: 0, FinishReason: "stop",
			Message: contract.ChatMessage{Role: "assistant", Content: answer}}},
	}}, nil
}
