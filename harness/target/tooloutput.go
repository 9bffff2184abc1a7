package target

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Prepared is one bundle `trtmc-bench run --prepare-only` reports
// (apps/benchmark/trtmc_benchmark/cli.py: {"bundles": [{model, status, bundle, command, build_time_s}]}).
type Prepared struct {
	Model      string   `json:"model"`
	Status     string   `json:"status"` // built | reused
	Bundle     string   `json:"bundle"`
	Command    []string `json:"command"`
	BuildTimeS float64  `json:"build_time_s"`
	Double     string   `json:"contract_double,omitempty"` // the contract double's self-label
}

// ParsePrepare reads --prepare-only's JSON and returns the profile's bundle.
func ParsePrepare(stdout []byte, profile string) (Prepared, error) {
	var out struct {
		Bundles []Prepared `json:"bundles"`
	}
	if err := json.Unmarshal(lastJSON(stdout), &out); err != nil {
		return Prepared{}, fmt.Errorf("trtmc-bench --prepare-only output is not {\"bundles\": [...]}: %w", err)
	}
	for _, b := range out.Bundles {
		if b.Model == profile {
			if b.Bundle == "" || (b.Status != "built" && b.Status != "reused") {
				return b, fmt.Errorf("trtmc-bench reports profile %s with status %q and bundle %q", profile, b.Status, b.Bundle)
			}
			return b, nil
		}
	}
	return Prepared{}, fmt.Errorf("trtmc-bench --prepare-only did not report profile %s (%d bundles)", profile, len(out.Bundles))
}

// Inspected is `trtmc inspect BUNDLE`'s JSON (apps/cli/cli.cpp).
type Inspected struct {
	Family   string         `json:"family"`
	Task     string         `json:"task"`
	Sections map[string]any `json:"sections"`
	// Double is the contract double's self-label ("" from real TRTMC): the harness copies it into
	// every result row it produces, so nothing the double made can pass for a TRTMC result.
	Double string `json:"contract_double,omitempty"`
}

// ParseInspect reads `trtmc inspect`: JSON with family and task (newer, apps/cli/cli.cpp) or the
// older text report ("Family:" and "Runtime strategy:" lines, src/cli/main.cpp cmd_inspect),
// whose runtime strategy stands for the task.
func ParseInspect(format string, stdout []byte) (Inspected, error) {
	var in Inspected
	if format == "text" {
		for _, line := range strings.Split(string(stdout), "\n") {
			k, v, _ := strings.Cut(line, ":")
			switch strings.TrimSpace(k) {
			case "Family":
				in.Family = strings.TrimSpace(v)
			case "Runtime strategy":
				in.Task = strings.TrimSpace(v)
			}
		}
		if in.Family == "" || in.Task == "" {
			return in, fmt.Errorf("trtmc inspect printed no Family/Runtime strategy lines: %s", clip(stdout))
		}
		return in, nil
	}
	if err := json.Unmarshal(lastJSON(stdout), &in); err != nil || in.Task == "" {
		return in, fmt.Errorf("trtmc inspect printed no JSON with a task (%v): %s", err, clip(stdout))
	}
	return in, nil
}

// CaseResult is one testcase in a family gate's JUnit report.
type CaseResult struct {
	Case    string  `json:"case"`
	Test    string  `json:"test"`
	Status  string  `json:"status"` // passed | failed | error | skipped
	Message string  `json:"message,omitempty"`
	Seconds float64 `json:"seconds"`
}

// GateReport is a JUnit report read against the cases that were asked for.
type GateReport struct {
	Passed  bool         `json:"passed"`
	Cases   []CaseResult `json:"cases"`
	Missing []string     `json:"missing,omitempty"`
	Reasons []string     `json:"reasons,omitempty"`
}

type junitCase struct {
	Name      string  `xml:"name,attr"`
	ClassName string  `xml:"classname,attr"`
	Time      string  `xml:"time,attr"`
	Failure   *junitM `xml:"failure"`
	Error     *junitM `xml:"error"`
	Skipped   *junitM `xml:"skipped"`
}

type junitM struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

type junitSuite struct {
	Cases  []junitCase  `xml:"testcase"`
	Suites []junitSuite `xml:"testsuite"`
}

// ParseJUnit reads pytest's JUnit XML (rooted at <testsuites> or <testsuite>). A test counts
// for a case when casePattern's "case" group matches its name; every wanted case must be
// present and passed, and a skip is a failure (as TRTMC's tools/ci/e2e.py rules).
func ParseJUnit(data []byte, casePattern string, want []string) (GateReport, error) {
	re, err := regexp.Compile(casePattern)
	if err != nil || re.SubexpIndex("case") < 0 {
		return GateReport{}, fmt.Errorf("gate_case %q is not a regexp with a (?P<case>...) group", casePattern)
	}
	var root junitSuite
	if err := xml.Unmarshal(data, &root); err != nil {
		return GateReport{}, fmt.Errorf("gate JUnit XML: %w", err)
	}
	rep := GateReport{Passed: true}
	seen := map[string]bool{}
	for _, c := range flatten(root) {
		m := re.FindStringSubmatch(c.Name)
		if m == nil {
			continue
		}
		r := CaseResult{Case: m[re.SubexpIndex("case")], Test: c.Name, Status: "passed"}
		r.Seconds, _ = strconv.ParseFloat(c.Time, 64)
		switch {
		case c.Failure != nil:
			r.Status, r.Message = "failed", firstLine(c.Failure)
		case c.Error != nil:
			r.Status, r.Message = "error", firstLine(c.Error)
		case c.Skipped != nil:
			r.Status, r.Message = "skipped", firstLine(c.Skipped)
		}
		seen[r.Case] = true
		rep.Cases = append(rep.Cases, r)
		if r.Status != "passed" {
			rep.Passed = false
			rep.Reasons = append(rep.Reasons, fmt.Sprintf("%s %s: %s", r.Test, r.Status, r.Message))
		}
	}
	for _, w := range want {
		if !seen[w] {
			rep.Missing = append(rep.Missing, w)
		}
	}
	if len(rep.Missing) > 0 {
		rep.Passed = false
		rep.Reasons = append(rep.Reasons, "requested cases absent from the JUnit report: "+strings.Join(rep.Missing, ", "))
	}
	if len(rep.Cases) == 0 {
		rep.Passed = false
		rep.Reasons = append(rep.Reasons, "no test in the JUnit report matches "+casePattern)
	}
	return rep, nil
}

func flatten(s junitSuite) []junitCase {
	out := append([]junitCase(nil), s.Cases...)
	for _, sub := range s.Suites {
		out = append(out, flatten(sub)...)
	}
	return out
}

func firstLine(m *junitM) string {
	s := strings.TrimSpace(m.Message)
	if s == "" {
		s = strings.TrimSpace(m.Body)
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// ValidatedBundle finds the one bundle a gate validated (the globs in gate_bundle, expanded:
// whisper-style tests build at tmp_path, canary's at tmp_path.parent). None or several is an
// error: serving a bundle other than the validated one is never guessed.
func ValidatedBundle(globs ...string) (string, error) {
	seen := map[string]bool{}
	var matches []string
	for _, glob := range globs {
		m, err := filepath.Glob(glob)
		if err != nil {
			return "", fmt.Errorf("gate_bundle %q: %w", glob, err)
		}
		for _, x := range m {
			if !seen[x] {
				seen[x] = true
				matches = append(matches, x)
			}
		}
	}
	sort.Strings(matches)
	where := strings.Join(globs, " or ")
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("the gate left no bundle at %s (is tmp_path_retention_policy=all set?)", where)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("the gate left %d bundles at %s: %v; cannot tell which one it validated", len(matches), where, matches)
}

// Transcript is a native transcription run's output.
type Transcript struct {
	Text     string  `json:"text"`
	SetupMS  float64 `json:"setup_ms,omitempty"`
	PrefillM float64 `json:"prefill_ms,omitempty"`
	DecodeMS float64 `json:"decode_ms,omitempty"`
}

// ParseTranscript reads `trtmc transcribe`: one JSON line {"text", "token_ids", "setup_ms",
// "prefill_ms", "decode_ms"} (newer, apps/cli/cli.cpp) or the plain text (older, src/cli/main.cpp
// prints results[i].text). Log lines on stdout before the JSON line are skipped.
func ParseTranscript(format string, stdout []byte) (Transcript, error) {
	switch format {
	case "", "json":
		var t Transcript
		line := lastJSON(stdout)
		if err := json.Unmarshal(line, &t); err != nil {
			return t, fmt.Errorf("transcribe printed no JSON line: %s", clip(stdout))
		}
		var probe map[string]any
		if json.Unmarshal(line, &probe); probe["text"] == nil {
			return t, fmt.Errorf("transcribe JSON has no \"text\": %s", clip(line))
		}
		return t, nil
	case "text":
		return Transcript{Text: strings.TrimSpace(string(stdout))}, nil
	case "streaming-json":
		return parseStreaming(stdout)
	}
	return Transcript{}, fmt.Errorf("native_output %q is not json, streaming-json or text", format)
}

// parseStreaming reads `trtmc transcribe-streaming`: a JSON object whose "final" holds the
// transcript (families/nemotron_speech_streaming/tests/test_e2e.py @d46edb11 reads
// payload["final"]["text"]), on one line or over several.
func parseStreaming(stdout []byte) (Transcript, error) {
	var payload struct {
		Final *struct {
			Text *string `json:"text"`
		} `json:"final"`
	}
	body := bytes.TrimSpace(stdout)
	if json.Unmarshal(body, &payload) != nil {
		if err := json.Unmarshal(lastJSON(stdout), &payload); err != nil {
			return Transcript{}, fmt.Errorf("transcribe-streaming printed no JSON: %s", clip(stdout))
		}
	}
	if payload.Final == nil || payload.Final.Text == nil {
		return Transcript{}, fmt.Errorf("transcribe-streaming JSON has no final.text: %s", clip(body))
	}
	return Transcript{Text: *payload.Final.Text}, nil
}

// ImageRun is a native image generation's output.
type ImageRun struct {
	Output string `json:"output"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

var reSaved = regexp.MustCompile(`Saved (\S+) \((\d+)x(\d+)\)`)

// ParseImageRun reads `trtmc generate-image` ({"output", "height", "width"}, newer) or
// `trtmc run`'s "Saved out.png (WxH)" (older).
func ParseImageRun(format string, stdout []byte) (ImageRun, error) {
	switch format {
	case "", "json":
		var r ImageRun
		if err := json.Unmarshal(lastJSON(stdout), &r); err != nil || r.Output == "" {
			return r, fmt.Errorf("generate-image printed no JSON with an output path: %s", clip(stdout))
		}
		return r, nil
	case "saved":
		m := reSaved.FindSubmatch(stdout)
		if m == nil {
			return ImageRun{}, fmt.Errorf("run printed no \"Saved PATH (WxH)\": %s", clip(stdout))
		}
		w, _ := strconv.Atoi(string(m[2]))
		h, _ := strconv.Atoi(string(m[3]))
		return ImageRun{Output: string(m[1]), Width: w, Height: h}, nil
	}
	return ImageRun{}, fmt.Errorf("native_output %q is not json or saved", format)
}

// lastJSON is the last JSON object stdout holds, after any log lines: an object starting at the
// beginning of a line and running to the end of stdout, on one line or pretty-printed over many
// (trtmc-bench prints json.dumps(..., indent=2): apps/benchmark/trtmc_benchmark/cli.py @0dd9052f).
func lastJSON(stdout []byte) []byte {
	var last []byte
	for start := 0; start < len(stdout); {
		end := bytes.IndexByte(stdout[start:], '\n')
		if end < 0 {
			end = len(stdout) - start
		}
		if stdout[start] == '{' {
			if obj, ok := oneObject(stdout[start:]); ok {
				last = obj
			}
		}
		start += end + 1
	}
	return last
}

// oneObject decodes the JSON object at the start of b, ending on its own line: what follows it
// on that line, if anything, must be white space.
func oneObject(b []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return nil, false
	}
	rest := b[dec.InputOffset():]
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	return raw, len(bytes.TrimSpace(rest)) == 0
}

func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}
