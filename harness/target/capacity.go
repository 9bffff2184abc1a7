package target

import "fmt"

// Sweep is a stage's capacity sweep (`qual capacity`, harness/capacity): the latency objective
// and the concurrency levels, each level served runs times (warmup + requests per run).
type Sweep struct {
	Objective   Objective `yaml:"objective" json:"objective"`
	Concurrency []int     `yaml:"concurrency" json:"concurrency"` // levels, ascending
	Warmup      int       `yaml:"warmup" json:"warmup"`
	Requests    int       `yaml:"requests" json:"requests"` // measured requests per run
	Runs        int       `yaml:"runs" json:"runs"`         // AIPerf runs per level: the interval's n
}

// Objective is a stage's latency objective.
type Objective struct {
	ClientP95MS float64 `yaml:"client_p95_ms" json:"client_p95_ms"`     // client latency p95 at most this
	MaxRTF      float64 `yaml:"max_rtf" json:"max_rtf,omitempty"`       // speech: Task time per audio second at most this (0: none)
	MaxFailures int     `yaml:"max_failures" json:"max_failures"`       // failed requests a run may have (default 0)
	LateMS      float64 `yaml:"late_ms" json:"late_ms,omitempty"`       // the client kept up: sends at most this late (0: the default)
	LateShare   float64 `yaml:"late_share" json:"late_share,omitempty"` // ... or this share of client p50 (0: the default)
	Note        string  `yaml:"note" json:"note,omitempty"`             // where the objective comes from
}

// Validate reports a sweep that cannot be run.
func (s Sweep) Validate() error {
	if len(s.Concurrency) == 0 || s.Requests < 1 || s.Runs < 1 || s.Warmup < 0 || s.Objective.ClientP95MS <= 0 {
		return fmt.Errorf("a capacity sweep needs concurrency levels, requests ≥ 1, runs ≥ 1, warmup ≥ 0 and objective.client_p95_ms > 0 (got %+v)", s)
	}
	for i, c := range s.Concurrency {
		if c < 1 || (i > 0 && c <= s.Concurrency[i-1]) {
			return fmt.Errorf("capacity concurrency levels must be ascending and ≥ 1: %v", s.Concurrency)
		}
	}
	return nil
}
