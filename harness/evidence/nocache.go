package evidence

// NoCache is the evidence of a row's no-caching check (harness/nocache): k repeats of one input
// and k fresh variants of it of the same cost, interleaved on the warm server, compared in
// server Task time (model_call_ms).
type NoCache struct {
	Input          string           `json:"input"`            // the repeated input's id
	FirstRequestID string           `json:"first_request_id"` // its measured request in the AIPerf run
	Output         string           `json:"output"`           // its comparable output in the AIPerf run: every repeat must give it
	Variant        string           `json:"variant"`          // how a fresh variant differs from the input
	K              int              `json:"k"`                // repeats, and as many fresh variants
	Concurrency    int              `json:"concurrency"`
	Repeats        []NoCacheRequest `json:"repeats"`
	Fresh          []NoCacheRequest `json:"fresh"`
	RepeatMedianMS float64          `json:"repeat_median_model_call_ms"`
	FreshMedianMS  float64          `json:"fresh_median_model_call_ms"`
	// Pairs are the (repeat i, fresh variant i) pairs both answered; ShiftFraction is the paired
	// Hodges–Lehmann ratio repeat/fresh of model_call_ms minus 1, ShiftFractionCI its Wilcoxon
	// signed-rank interval (computed on log-ratios), minus 1.
	Pairs           int      `json:"pairs"`
	ShiftFraction   float64  `json:"shift_fraction"`
	ShiftFractionCI Bounds   `json:"shift_fraction_ci"`
	Level           float64  `json:"level"`
	Method          string   `json:"method"`         // exact or normal (harness/stats.SignedRank)
	NativeTaskMS    *float64 `json:"native_task_ms"` // the native run's public Task call on the input; nil when the target prints none
	// FirstSightTaskMS is the Task time of the server's first request of the input in the row's
	// AIPerf run (warmup included): no cache can have served it. Nil for a row not served.
	FirstSightTaskMS *float64 `json:"first_sight_task_ms,omitempty"`
	Margin           float64  `json:"margin"`       // how much faster repeats may be, as a fraction of the fresh median
	NativeFloor      float64  `json:"native_floor"` // the fraction of the native time below which a repeat median fails
	Rule             string   `json:"rule"`
	Records          string   `json:"records,omitempty"` // the check's server records, relative to the run directory
	Failures         []string `json:"failures,omitempty"`
	Passed           bool     `json:"passed"`
}

// NoCacheRequest is one request of the check as the server recorded it.
type NoCacheRequest struct {
	RequestID   string  `json:"request_id"`
	Status      int     `json:"status"`
	TaskMS      float64 `json:"model_call_ms"`
	InputSHA256 string  `json:"input_sha256,omitempty"`
	Output      string  `json:"output,omitempty"` // a repeat's comparable output (the stage's identity rule)
}
