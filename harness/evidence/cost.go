package evidence

// Cost is what a row's qualification cost the harness beyond the Task compute its claims
// needed (harness/cost): the row's wall time, that Task time, and the difference by step.
type Cost struct {
	WallS     float64    `json:"wall_s"`     // from preparing the checkpoint to settling its result
	TaskS     float64    `json:"task_s"`     // Task time the claims needed (each step's task_s summed)
	OverheadS float64    `json:"overhead_s"` // wall_s − task_s
	Steps     []StepCost `json:"steps"`
	Rule      string     `json:"rule"`
}

// StepCost is one step's share: its wall time, the Task time in it and the rest.
type StepCost struct {
	Step      string  `json:"step"`
	WallS     float64 `json:"wall_s"`
	TaskS     float64 `json:"task_s"`
	OverheadS float64 `json:"overhead_s"`
}
