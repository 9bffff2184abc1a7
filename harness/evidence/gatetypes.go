package evidence

// GateResult is a row's recorded gate (Result.Gate): the verdict of the family's gate with every
// figure it computed, in the shape the gate prints it (native/family's GateResult, read from its
// JSON; a test keeps the two field for field).
type GateResult struct {
	Family     string             `json:"family"`
	Profile    string             `json:"profile"`
	Testcase   string             `json:"testcase"`
	BundleSHA  string             `json:"bundle_sha256"`
	Thresholds map[string]float64 `json:"thresholds"`
	Settings   map[string]string  `json:"settings,omitempty"` // what the family ran with, e.g. the CPU kernels it selected
	Figures    map[string]float64 `json:"figures"`
	Passed     bool               `json:"passed"`
	Failures   []string           `json:"failures,omitempty"`
	Items      []GateItem         `json:"items"`
}

// GateItem is one gate input's outcome.
type GateItem struct {
	ID       string  `json:"id"`
	Output   string  `json:"output"`
	Expected string  `json:"expected"` // what Output is compared with: the upstream transcript, answer or image path
	Gold     string  `json:"gold,omitempty"`
	Distance float64 `json:"distance"`
	Passed   bool    `json:"passed"`
	Detail   string  `json:"detail,omitempty"`
}
