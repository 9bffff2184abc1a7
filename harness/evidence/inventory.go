package evidence

// InventoryRow is one profile's line in the inventory (harness/inventory builds it).
type InventoryRow struct {
	Stage            string   `json:"stage"`
	Checkpoint       string   `json:"checkpoint"`
	Revision         string   `json:"revision"`
	Profile          string   `json:"profile"`
	Family           string   `json:"family"`
	TaskString       string   `json:"task_string"`
	NativeTask       string   `json:"native_task"`
	CapabilitySource string   `json:"capability_source,omitempty"`
	Layout           string   `json:"layout,omitempty"`
	Controls         []string `json:"controls,omitempty"`
	CapabilityGap    string   `json:"capability_gap,omitempty"`
	Kind             Kind     `json:"kind"`
	Markings         []string `json:"markings,omitempty"` // why a row is reduced, a variant or excluded
	Notes            []string `json:"notes,omitempty"`
	GPUs             int      `json:"gpus,omitempty"` // a distributed profile's device count (> 1): planned, never attempted
	Counted          bool     `json:"counted"`
	Status           Status   `json:"status"`
	Reason           string   `json:"reason,omitempty"`
	Precision        string   `json:"precision"`
	Manifest         string   `json:"manifest"`
	Testcases        []string `json:"testcases"`
	Statement        string   `json:"statement,omitempty"` // e.g. "NOT a trained model"
}

// AuditRow is one profile in a capability audit.
type AuditRow struct {
	Profile      string   `json:"profile"`
	Family       string   `json:"family"`
	TaskString   string   `json:"task_string"`
	Capabilities []string `json:"capabilities"`
	Source       string   `json:"capability_source,omitempty"`
	AudioInput   string   `json:"audio_input,omitempty"` // what kind of audio-input family it is, if any
	Has          bool     `json:"has_capability"`
}
