// Package asrgate holds what every speech_transcription family's gate reads the same way: the
// testcase's bounds, the pinned clips and the committed upstream transcripts, and the run of
// every clip through the public Task.
package asrgate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/dataset"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Upstream is an upstream tool's transcripts of a dataset's clips, with the command that made
// them (and, where the tool takes them, its versions and settings): what a gate compares the
// native Task's transcripts with.
type Upstream struct {
	Tool        string            `json:"tool"`
	ToolPackage string            `json:"tool_package"`
	ToolVersion string            `json:"tool_version"`
	Versions    map[string]string `json:"versions,omitempty"`
	Command     string            `json:"command"`
	Settings    json.RawMessage   `json:"settings,omitempty"`
	Note        string            `json:"note"`
	Transcripts []Transcript      `json:"transcripts"`
}

// Transcript is one clip's upstream transcript.
type Transcript struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// ReadUpstream reads an upstream transcripts file.
func ReadUpstream(path string) (Upstream, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Upstream{}, fmt.Errorf("read upstream transcripts: %w", err)
	}
	var r Upstream
	if err := json.Unmarshal(data, &r); err != nil {
		return Upstream{}, fmt.Errorf("upstream transcripts %s: %w", path, err)
	}
	return r, nil
}

// Inputs are a gate's bounds, clips and upstream transcripts.
type Inputs struct {
	Thresholds manifest.Thresholds
	Limits     map[string]float64 // the named bounds; a missing one is an error, never a default
	Clips      []dataset.Materialized
	Upstream   []string // in clip order
}

// Read loads the thresholds (requiring every named limit), materializes the testcase's clips
// under env.WorkDir and lines the upstream transcripts up with them.
func Read(m manifest.Manifest, tc manifest.Testcase, env family.GateEnv, limits ...string) (Inputs, error) {
	var in Inputs
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(m, tc.Name))
	if err != nil {
		return in, err
	}
	in.Thresholds, in.Limits = th, map[string]float64{}
	for _, k := range limits {
		if in.Limits[k], err = th.Limit(k); err != nil {
			return in, err
		}
	}
	if in.Clips, err = clips(m, tc, env); err != nil {
		return in, err
	}
	refs, err := ReadUpstream(filepath.Join(env.Root, tc.Expected))
	if err != nil {
		return in, err
	}
	byID := map[string]string{}
	for _, r := range refs.Transcripts {
		byID[r.ID] = r.Text
	}
	for _, c := range in.Clips {
		ref, ok := byID[c.ID]
		if !ok {
			return in, fmt.Errorf("upstream transcripts %s have none for clip %s", tc.Expected, c.ID)
		}
		in.Upstream = append(in.Upstream, ref)
	}
	return in, nil
}

// clips materializes the testcase's pinned dataset, or is the one clip a TRTMC testcase
// carries itself (test_input_audio, manifest.InputAudioPath): its id is the testcase's name and
// it has no gold text (TRTMC gives none).
func clips(m manifest.Manifest, tc manifest.Testcase, env family.GateEnv) ([]dataset.Materialized, error) {
	if wav, ok, err := m.InputAudioPath(tc); ok || err != nil {
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(wav); err != nil {
			return nil, fmt.Errorf("manifest %s testcase %q: test_input_audio: %w", m.Path, tc.Name, err)
		}
		return []dataset.Materialized{{ASRClip: dataset.ASRClip{ID: tc.Name}, Path: wav}}, nil
	}
	set, err := dataset.ReadASR(filepath.Join(env.Root, tc.Dataset))
	if err != nil {
		return nil, err
	}
	set.Cache = env.Cache
	return set.Materialize(env.Root, filepath.Join(env.WorkDir, "clips"))
}

// Transcribe decodes each clip's WAV file and runs it through the public Task, as the native
// CLI does; it returns the transcripts in clip order and the audio seconds.
func Transcribe(ctx context.Context, tr task.Transcriber, clips []dataset.Materialized) ([]string, float64, error) {
	out := make([]string, len(clips))
	seconds := 0.0
	for i, c := range clips {
		data, err := os.ReadFile(c.Path)
		if err != nil {
			return nil, 0, err
		}
		a, err := audio.DecodeWAV(data)
		if err != nil {
			return nil, 0, fmt.Errorf("clip %s: %w", c.ID, err)
		}
		t, err := tr.Transcribe(ctx, a, task.TranscribeConfig{})
		if err != nil {
			return nil, 0, fmt.Errorf("clip %s: %w", c.ID, err)
		}
		out[i], seconds = t.Text, seconds+a.Seconds()
	}
	return out, seconds, nil
}
