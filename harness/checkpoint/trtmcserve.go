package checkpoint

// What a TRTMC-kind server serves, from what TRTMC's serving app reports (contract.TRTMCServingInfo)
// and a hash the harness computes itself, and the one configuration the HTTP requests and the
// native twin then share, derived from the served base request.

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// publicTaskCallWall is the only timing scope TRTMC's worker measures (benchmark_worker.cpp
// @ca938e40 parse_timing); the timing claim reads model_call_ms as that.
const publicTaskCallWall = "public_task_call_wall"

// served: TRTMC's /v1/serving/info must name the bundle at the path the harness mounted and the
// row's task, family, profile and testcase; the served file is hashed inside the container.
func (trtmcSteps) served(ctx context.Context, c *Checkpoint) error {
	info, err := c.trtmcServingInfo(ctx)
	if err != nil {
		return err
	}
	mounted := c.serving.server.BundlePath(c.bundlePath)
	if err := CheckTRTMCServed(info, c.want(mounted)); err != nil {
		return err
	}
	code, out, err := c.serving.server.ExecOutput(ctx, "sha256sum", mounted)
	sum := sha256Field(out)
	if err != nil || code != 0 || sum == "" {
		return fmt.Errorf("hash the served bundle %s in the container: exit %d %v: %s", mounted, code, err, out)
	}
	c.Result.Bundle.SHA256Served = sum
	if c.Result.Bundle.SHA256Served != c.Result.Bundle.SHA256Built {
		return fmt.Errorf("the served bundle %s hashes to %s, built %s", mounted, c.Result.Bundle.SHA256Served, c.Result.Bundle.SHA256Built)
	}
	s := ServedOf(info, c.Manifest.Build)
	c.Result.Served = &s
	c.logf("serving %s/%s (bundle %s sha256 %s, load %.0f ms, base request %v)", info.Profile, info.Testcase, mounted,
		c.Result.Bundle.SHA256Served, s.LoadMS, s.BaseRequest)
	return nil
}

// want is what the row expects the server to report.
func (c *Checkpoint) want(mounted string) contract.TRTMCServingInfo {
	task := c.Manifest.TaskString()
	if t, ok := c.Result.Bundle.Header["task"].(string); ok && t != "" { // the worker reports the bundle's own
		task = t
	}
	return contract.TRTMCServingInfo{Bundle: mounted, Task: task, Family: c.Manifest.Family, Profile: c.Manifest.Name, Testcase: c.Testcase.Name}
}

// trtmcServingInfo reads GET /v1/serving/info in TRTMC's shape.
func (c *Checkpoint) trtmcServingInfo(ctx context.Context) (contract.TRTMCServingInfo, error) {
	var info contract.TRTMCServingInfo
	return info, c.serving.server.GetJSON(ctx, "/v1/serving/info", "", &info)
}

// CheckTRTMCServed compares what TRTMC's app reports with what the row expects: the same
// bundle path, task, family, profile and testcase, the one timing scope the timing claim
// assumes, a load time and a base request. qual verify re-checks the stored copy with it.
func CheckTRTMCServed(got, want contract.TRTMCServingInfo) error {
	var bad []string
	for _, f := range []struct{ name, got, want string }{{"bundle", got.Bundle, want.Bundle}, {"task", got.Task, want.Task},
		{"family", got.Family, want.Family}, {"profile", got.Profile, want.Profile}, {"testcase", got.Testcase, want.Testcase},
		{"timing_scope", got.TimingScope, publicTaskCallWall}} {
		if f.got != f.want {
			bad = append(bad, fmt.Sprintf("%s %q, want %q", f.name, f.got, f.want))
		}
	}
	if got.LoadMS == nil {
		bad = append(bad, "no load_ms")
	}
	if len(got.BaseRequest) == 0 {
		bad = append(bad, "no base_request")
	}
	if len(bad) > 0 {
		return fmt.Errorf("serving info: %s", strings.Join(bad, "; "))
	}
	return nil
}

// ServedOf is the evidence of what was served, with the one configuration both sides run
// with: the HTTP language and every native flag value come from the base request (build are
// the manifest's build settings, whose language names the family's when the base request
// leaves it empty).
func ServedOf(info contract.TRTMCServingInfo, build map[string]any) evidence.Served {
	s := evidence.Served{Bundle: info.Bundle, Task: info.Task, Family: info.Family, Profile: info.Profile, Testcase: info.Testcase,
		TimingScope: info.TimingScope, BaseRequest: info.BaseRequest, HTTP: map[string]string{}, Native: map[string]string{}}
	if info.LoadMS != nil {
		s.LoadMS = *info.LoadMS
	}
	if l, ok := contract.BaseLanguage(info.BaseRequest); ok { // the operation takes a language: say it on both sides
		if l == "" {
			l = familyLanguage(build)
		}
		s.HTTP["language"], s.Native["language"] = l, l
	}
	for k, v := range contract.NativeFromBase(info.BaseRequest) {
		s.Native[k] = v
	}
	return s
}

// familyLanguage is the language a transcription runs in when the served base request leaves it
// empty: the family's declared one, else the native CLI's default ("en":
// include/trtmc/pipeline.h @e9132e79 `std::string source_language{"en"}`), sent explicitly on
// both sides so that neither decodes with a language the other does not.
func familyLanguage(build map[string]any) string {
	for _, k := range []string{"language", "source_language", "default_language"} {
		if v, ok := build[k].(string); ok && v != "" {
			return v
		}
	}
	return "en"
}

// sha256Field is the first 64-hex-digit run in sha256sum's output ("" when there is none): an
// exec stream may carry framing bytes before it.
func sha256Field(out string) string { return regexp.MustCompile(`[0-9a-f]{64}`).FindString(out) }

// servedNative fills the native run's values the request left empty from the served base request.
func (c *Checkpoint) servedNative(values map[string]string) {
	if c.Result.Served == nil {
		return
	}
	for k, v := range c.Result.Served.Native {
		if values[k] == "" {
			values[k] = v
		}
	}
}

// servedHTTP adds to every AIPerf row the form fields the served configuration sends
// explicitly (the language: AIPerf copies a row's extra into the request, and TRTMC's app maps
// it onto the base request, openai.py @db5a3def transcription).
func (c *Checkpoint) servedHTTP(rows []map[string]any) {
	if c.Result.Served == nil || len(c.Result.Served.HTTP) == 0 {
		return
	}
	for _, row := range rows {
		extra, _ := row["extra"].(map[string]any) // the row's own (a prompt's seed...) stays
		if extra == nil {
			extra = map[string]any{}
		}
		for k, v := range c.Result.Served.HTTP {
			extra[k] = v
		}
		row["extra"] = extra
	}
}
