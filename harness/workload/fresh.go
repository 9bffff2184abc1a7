package workload

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
)

// A fresh input of equal cost (Workload's FreshVariant) is a request that costs the server the
// same Task work as a recorded one but cannot be answered from an exact-match cache of it. The
// no-caching check (harness/nocache) compares repeats of one input with such variants.

const audioVariantRule = "the same WAV with the least significant bit of one sample flipped (frame n/2 + i): same length and format, a different decoded clip and sha256"

// FreshVariant flips one sample's least significant bit of the uploaded clip.
func (asr) FreshVariant(payload map[string]any, i int) (map[string]any, error) {
	out, err := deepCopy(payload)
	if err != nil {
		return nil, err
	}
	file, _ := out["file"].(map[string]any)
	b64, _ := file["b64_data"].(string)
	if file == nil || b64 == "" {
		return nil, fmt.Errorf("transcription payload has no file.b64_data")
	}
	if file["b64_data"], err = flipSampleLSB(b64, i); err != nil {
		return nil, err
	}
	return out, nil
}

func (asr) VariantRule() string { return audioVariantRule }

// FreshVariant flips one sample's least significant bit of the input_audio clip; the question
// is unchanged.
func (audioQA) FreshVariant(payload map[string]any, i int) (map[string]any, error) {
	out, err := deepCopy(payload)
	if err != nil {
		return nil, err
	}
	n := 0
	msgs, _ := out["messages"].([]any)
	for _, m := range msgs {
		parts, _ := m.(map[string]any)["content"].([]any)
		for _, p := range parts {
			ia, _ := p.(map[string]any)["input_audio"].(map[string]any)
			data, _ := ia["data"].(string)
			if data == "" {
				continue
			}
			if ia["data"], err = flipSampleLSB(data, i); err != nil {
				return nil, err
			}
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("chat payload holds %d input_audio parts, want 1", n)
	}
	return out, nil
}

func (audioQA) VariantRule() string { return audioVariantRule }

// FreshVariant is the same prompt and settings with another seed (seed + 1 + i): the same
// steps at the same size, a different image.
func (t2i) FreshVariant(payload map[string]any, i int) (map[string]any, error) {
	out, err := deepCopy(payload)
	if err != nil {
		return nil, err
	}
	seed, ok := out["seed"].(float64)
	if !ok {
		return nil, fmt.Errorf("images payload has no numeric seed")
	}
	out["seed"] = seed + 1 + float64(i)
	return out, nil
}

func (t2i) VariantRule() string {
	return "the same prompt and settings with seed + 1 + i: the same steps at the same size, a different image"
}

// deepCopy copies a decoded JSON payload, so a variant never changes the recorded one.
func deepCopy(payload map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	return out, nil
}

// flipSampleLSB flips the least significant bit of frame n/2 + i (modulo n) of a base64 WAV: the
// first byte of a little-endian frame holds its first sample's lowest bits. It checks that the
// decoded clip changed and its length did not.
func flipSampleLSB(b64 string, i int) (string, error) {
	wav, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("audio is not base64: %w", err)
	}
	before, err := audio.DecodeWAV(wav)
	if err != nil {
		return "", err
	}
	off, size, align, err := wavData(wav)
	if err != nil {
		return "", err
	}
	frames := size / align
	if frames == 0 {
		return "", fmt.Errorf("WAV has no samples to vary")
	}
	wav[off+((frames/2+i)%frames)*align] ^= 1
	after, err := audio.DecodeWAV(wav)
	if err != nil {
		return "", err
	}
	if after.SHA256() == before.SHA256() || len(after.Samples) != len(before.Samples) {
		return "", fmt.Errorf("flipping a sample's least significant bit did not give a different clip of the same length")
	}
	return base64.StdEncoding.EncodeToString(wav), nil
}

// wavData finds a RIFF/WAVE file's data chunk and its frame size (fmt's block align); the chunk
// walk is native/audio's (walkChunks), which keeps its offsets to itself.
func wavData(wav []byte) (off, size, align int, err error) {
	for pos := 12; pos+8 <= len(wav); {
		id, n := string(wav[pos:pos+4]), int(binary.LittleEndian.Uint32(wav[pos+4:pos+8]))
		body := pos + 8
		if body+n > len(wav) {
			break
		}
		switch {
		case id == "fmt " && n >= 16:
			align = int(binary.LittleEndian.Uint16(wav[body+12 : body+14]))
		case id == "data":
			off, size = body, n
		}
		pos = body + n + n%2
	}
	if align <= 0 || size == 0 {
		return 0, 0, 0, fmt.Errorf("WAV has no fmt block align or no data chunk")
	}
	return off, size, align, nil
}

// NativeTaskMS is the wall time of the public Task call a native run prints
// (public_task_call_wall_ms, trtmc-native's --json), nil when it prints none.
func NativeTaskMS(stdout string) *float64 {
	var timed struct {
		MS *float64 `json:"public_task_call_wall_ms"`
	}
	if nativeJSON(stdout, &timed) != nil {
		return nil
	}
	return timed.MS
}
