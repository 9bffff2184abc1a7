package inventory

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Limit is one declared limit and where it was found; an empty Value means not declared.
type Limit struct {
	Value  string `json:"value,omitempty"`
	Source string `json:"source,omitempty"`
}

func (l Limit) String() string {
	if l.Value == "" {
		return "not declared"
	}
	return l.Value + " (" + l.Source + ")"
}

// FamilyLimits is the audit of one stage-3 family's input limits, from its members' manifests,
// testcases and threshold files.
type FamilyLimits struct {
	Family         string   `json:"family"`
	Profiles       []string `json:"profiles"`
	MaxClipSeconds Limit    `json:"max_clip_seconds"`
	SampleRate     Limit    `json:"sample_rate"`
	TokenLimit     Limit    `json:"token_limit"`
	Language       Limit    `json:"language_default"`
	maxClip        float64  // the strictest declared clip limit; 0 = none
}

// The spellings each limit is found under (TRTMC's and the reference target's).
var (
	clipKeys     = []string{"max_seconds", "max_audio_seconds", "max_audio_duration_s", "max_duration_s", "max_clip_seconds", "max_input_seconds"}
	rateKeys     = []string{"sample_rate", "input_sample_rate", "audio_sample_rate", "expected_sample_rate"}
	tokenKeys    = []string{"max_sequence_length", "max_cache_length", "max_new_tokens", "max_output_tokens"}
	languageKeys = []string{"language", "source_language", "default_language"}
)

// Limits audits every stage-3 family among rows (excluded and gap rows left out).
func Limits(rows []evidence.InventoryRow, profiles map[string]Profile) []FamilyLimits {
	byFamily := map[string]*FamilyLimits{}
	found := map[string]map[string][]finding{} // family -> key -> findings
	for _, r := range rows {
		p, ok := profiles[r.Manifest]
		if !ok || r.Kind == evidence.KindExcluded || r.Kind == evidence.KindGap {
			continue
		}
		fl := byFamily[r.Family]
		if fl == nil {
			fl = &FamilyLimits{Family: r.Family}
			byFamily[r.Family], found[r.Family] = fl, map[string][]finding{}
		}
		fl.Profiles = append(fl.Profiles, r.Profile)
		for _, f := range findings(p) {
			found[r.Family][f.key] = append(found[r.Family][f.key], f)
		}
	}
	var out []FamilyLimits
	for fam, fl := range byFamily {
		f := found[fam]
		fl.MaxClipSeconds, fl.maxClip = numericLimit(f, clipKeys, true)
		fl.SampleRate, _ = numericLimit(f, rateKeys, false)
		fl.TokenLimit = tokenLimit(f)
		fl.Language = textLimit(f, languageKeys)
		sort.Strings(fl.Profiles)
		out = append(out, *fl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Family < out[j].Family })
	return out
}

type finding struct {
	key, value, where string
}

// findings collects every limit key in a manifest (top level, build, build_args), its
// testcases and their threshold files.
func findings(p Profile) []finding {
	var out []finding
	scan := func(m map[string]any, where string) {
		for _, keys := range [][]string{clipKeys, rateKeys, tokenKeys, languageKeys} {
			for _, k := range keys {
				switch v := m[k].(type) {
				case float64:
					out = append(out, finding{k, strconv.FormatFloat(v, 'f', -1, 64), where})
				case string:
					out = append(out, finding{k, v, where})
				}
			}
		}
	}
	scan(p.Top, p.Name)
	for _, sub := range []string{"build", "build_args"} {
		if m, ok := p.Top[sub].(map[string]any); ok {
			scan(m, p.Name+" "+sub)
		}
	}
	for _, c := range p.Testcases {
		scan(c.Fields, "testcase "+c.Name)
		thr := filepath.Join(filepath.Dir(filepath.Dir(p.Path)), "thresholds", c.Name+".json")
		if data, err := os.ReadFile(thr); err == nil {
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				scan(m, "thresholds/"+c.Name+".json")
				if o, ok := m["threshold_overrides"].(map[string]any); ok {
					scan(o, "thresholds/"+c.Name+".json")
				}
			}
		}
	}
	return out
}

// numericLimit reports the strictest (smallest) or the only value found under keys.
func numericLimit(f map[string][]finding, keys []string, strictest bool) (Limit, float64) {
	best, bestF := Limit{}, 0.0
	values := map[string]bool{}
	for _, k := range keys {
		for _, x := range f[k] {
			v, err := strconv.ParseFloat(x.value, 64)
			if err != nil || v <= 0 {
				continue
			}
			values[x.value] = true
			if bestF == 0 || (strictest && v < bestF) {
				best, bestF = Limit{Value: x.value, Source: k + " in " + x.where}, v
			}
		}
	}
	if len(values) > 1 && !strictest {
		best.Value = strings.Join(keysOf(values), " | ")
		best.Source = "differs by profile"
	}
	return best, bestF
}

// tokenLimit reports the build-time sequence budget and the largest per-testcase output budget.
func tokenLimit(f map[string][]finding) Limit {
	var parts, sources []string
	for _, k := range tokenKeys {
		lo, hi := 0.0, 0.0
		where := ""
		for _, x := range f[k] {
			v, err := strconv.ParseFloat(x.value, 64)
			if err != nil {
				continue
			}
			if lo == 0 || v < lo {
				lo = v
			}
			if v > hi {
				hi, where = v, x.where
			}
		}
		if hi == 0 {
			continue
		}
		if lo == hi {
			parts = append(parts, fmt.Sprintf("%s=%g", k, hi))
		} else {
			parts = append(parts, fmt.Sprintf("%s=%g..%g", k, lo, hi))
		}
		sources = append(sources, where)
	}
	if len(parts) == 0 {
		return Limit{}
	}
	return Limit{Value: strings.Join(parts, "; "), Source: "e.g. " + strings.Join(sources, ", ")}
}

func textLimit(f map[string][]finding, keys []string) Limit {
	values := map[string]string{}
	for _, k := range keys {
		for _, x := range f[k] {
			if _, seen := values[x.value]; !seen {
				values[x.value] = k + " in " + x.where
			}
		}
	}
	switch len(values) {
	case 0:
		return Limit{}
	case 1:
		for v, src := range values {
			return Limit{Value: v, Source: src}
		}
	}
	names := make(map[string]bool, len(values))
	for v := range values {
		names[v] = true
	}
	return Limit{Value: strings.Join(keysOf(names), " | "), Source: "differs by profile"}
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LimitsFor returns a family's audit.
func LimitsFor(all []FamilyLimits, family string) (FamilyLimits, bool) {
	for _, l := range all {
		if l.Family == family {
			return l, true
		}
	}
	return FamilyLimits{}, false
}

// Admit says whether a clip of the given length may be sent to the family: a clip beyond the
// family's declared maximum is not sent, and the reason names the limit and its source.
func (l FamilyLimits) Admit(clipSeconds float64) (bool, string) {
	if l.maxClip > 0 && clipSeconds > l.maxClip {
		return false, fmt.Sprintf("clip of %.2f s exceeds family %s's maximum clip duration %s", clipSeconds, l.Family, l.MaxClipSeconds)
	}
	return true, ""
}

// LimitsOfManifest audits the limits of the family a manifest belongs to, from every manifest of
// that family beside it: what the checkpoint flow needs to decide which clips may be sent.
func LimitsOfManifest(path string) (FamilyLimits, error) {
	p, err := readProfile(path)
	if err != nil {
		return FamilyLimits{}, fmt.Errorf("manifest %s: %w", path, err)
	}
	siblings, err := filepath.Glob(filepath.Join(filepath.Dir(path), "*.json"))
	if err != nil {
		return FamilyLimits{}, err
	}
	rep := Scan(siblings, Options{})
	if l, ok := LimitsFor(rep.Limits, p.Family); ok {
		return l, nil
	}
	return FamilyLimits{Family: p.Family}, nil
}

// Admission is what one profile's clips are admitted under: its family's strictest declared
// maximum clip duration, and the sample rate the profile itself declares (top level, build,
// build_args, a testcase or its thresholds), else its family's when every profile agrees. A
// family outside the stage-3 audit, or one that declares nothing, admits every clip.
type Admission struct {
	Family           string
	MaxClipSeconds   float64
	MaxClipSource    string
	SampleRate       int
	SampleRateSource string
}

// Limits are the admission's limits as a row records them.
func (a Admission) Limits() evidence.InputLimits {
	return evidence.InputLimits{MaxClipSeconds: a.MaxClipSeconds, MaxClipSource: a.MaxClipSource,
		SampleRate: a.SampleRate, SampleRateSource: a.SampleRateSource}
}

// AdmissionOf reads a manifest's admission from it and its family's manifests beside it.
func AdmissionOf(path string) (Admission, error) {
	fl, err := LimitsOfManifest(path)
	if err != nil {
		return Admission{}, err
	}
	a := Admission{Family: fl.Family}
	if len(fl.Profiles) == 0 { // not a stage-3 family: nothing declared for clips
		return a, nil
	}
	if fl.maxClip > 0 {
		a.MaxClipSeconds, a.MaxClipSource = fl.maxClip, fl.MaxClipSeconds.Source
	}
	p, err := readProfile(path)
	if err != nil {
		return Admission{}, fmt.Errorf("manifest %s: %w", path, err)
	}
	own := map[string][]finding{}
	for _, f := range findings(p) {
		own[f.key] = append(own[f.key], f)
	}
	rate, v := numericLimit(own, rateKeys, false)
	if v == 0 { // the profile declares none: the family's, when its profiles agree
		rate = fl.SampleRate
		v, _ = strconv.ParseFloat(rate.Value, 64)
	}
	if v > 0 && v == float64(int(v)) && rate.Source != "differs by profile" {
		a.SampleRate, a.SampleRateSource = int(v), rate.Source
	}
	return a, nil
}
