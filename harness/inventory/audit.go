package inventory

import (
	"fmt"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Audit lists every readable profile's capabilities and whether it implements want: the
// evidence behind a stage reported blocked. Audio-input families that still lack want (speech
// to speech, omni, voice chat, multimodal) are named, so the reader sees why they do not count.
// Malformed manifests are left out here; Scan lists them among the other manifests.
func Audit(paths []string, want task.Name, caps Capabilities) ([]evidence.AuditRow, error) {
	decl := newDeclarations()
	opts := Options{Capabilities: caps}
	var out []evidence.AuditRow
	for _, path := range paths {
		p, err := readProfile(path)
		if err != nil {
			continue
		}
		c, err := capabilityOf(p, decl, opts)
		if err != nil {
			continue
		}
		row := evidence.AuditRow{Profile: p.Name, Family: p.Family, TaskString: p.TaskString, Capabilities: capabilityNames(c.native), Source: c.source, Has: c.has(want)}
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
		return "omni (" + omniContract(p) + "; no audio question answering Task)"
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

// omniContract is what an omni profile's testcases declare they check: the user_contract and
// required stages (qwen3-omni @e9132e79: "user_contract": "tts_audio" with a required
// talker_decode stage, text in and speech out).
func omniContract(p Profile) string {
	var parts []string
	for _, c := range p.Testcases {
		contract, _ := c.Fields["user_contract"].(string)
		stages, _ := c.Fields["stages"].([]any)
		var required []string
		for _, s := range stages {
			if st, ok := s.(map[string]any); ok && st["required"] == true {
				name, _ := st["name"].(string)
				required = append(required, name)
			}
		}
		if contract == "" && len(required) == 0 {
			continue
		}
		part := fmt.Sprintf("testcase %s: user_contract %q", c.Name, contract)
		if len(required) > 0 {
			part += ", required stage " + strings.Join(required, ", ")
		}
		if contract == "tts_audio" {
			part += ": text in, speech out"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "its testcases declare no audio-input contract"
	}
	return strings.Join(parts, "; ")
}

// capabilityNames are the capabilities as the evidence records them: [] for none, as the
// text says, not null.
func capabilityNames(caps []task.Name) []string {
	out := make([]string, 0, len(caps))
	for _, c := range caps {
		out = append(out, string(c))
	}
	return out
}
