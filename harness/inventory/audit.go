package inventory

import (
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// AuditRow is one profile in a capability audit.
type AuditRow struct {
	Profile      string      `json:"profile"`
	Family       string      `json:"family"`
	TaskString   string      `json:"task_string"`
	Capabilities []task.Name `json:"capabilities"`
	Source       string      `json:"capability_source,omitempty"`
	AudioInput   string      `json:"audio_input,omitempty"` // what kind of audio-input family it is, if any
	Has          bool        `json:"has_capability"`
}

// Audit lists every readable profile's capabilities and whether it implements want: the
// evidence behind a stage reported blocked. Audio-input families that still lack want (speech
// to speech, omni, voice chat, multimodal) are named, so the reader sees why they do not count.
// Malformed manifests are left out here; Scan lists them among the other manifests.
func Audit(paths []string, want task.Name, caps Capabilities) ([]AuditRow, error) {
	decl := newDeclarations()
	opts := Options{Capabilities: caps}
	var out []AuditRow
	for _, path := range paths {
		p, err := readProfile(path)
		if err != nil {
			continue
		}
		c, err := capabilityOf(p, decl, opts)
		if err != nil {
			continue
		}
		row := AuditRow{Profile: p.Name, Family: p.Family, TaskString: p.TaskString, Capabilities: c.native, Source: c.source, Has: c.has(want)}
		if !c.has(task.SpeechTranscription) || nativeOf(p.TaskString) != task.SpeechTranscription {
			row.AudioInput = audioInput(p)
		}
		out = append(out, row)
	}
	return out, nil
}

// audioInput names the kind of audio-input family a profile belongs to, or "".
func audioInput(p Profile) string {
	l := strings.ToLower(p.TaskString)
	fam := strings.ToLower(p.Family + " " + p.RuntimeStrategy)
	switch {
	case l == "speech_session" || strings.Contains(fam, "voicechat") || strings.Contains(fam, "voice_chat"):
		return "voice-chat (full-duplex speech session; no audio question answering Task)"
	case l == "speech_to_speech":
		return "speech-to-speech (audio in, audio out; no audio question answering)"
	case l == "omni_multimodal" || strings.Contains(fam, "omni"):
		return "omni (its gated path is text-only; no audio question answering Task)"
	case strings.Contains(fam, "multimodal") || strings.Contains(l, "multimodal"):
		return "multimodal (gated on image input only; no audio question answering Task)"
	}
	for _, c := range p.Testcases {
		if c.Audio != "" {
			return "takes audio input (" + p.TaskString + "), not audio question answering"
		}
	}
	return ""
}
