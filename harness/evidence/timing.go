package evidence

// Timing is a row's steady-state figures (Result.Timing), as harness/timing summarizes them.
type Timing struct {
	Requests int      `json:"requests"`
	Figures  []Figure `json:"figures"`
}

// Get returns a figure's value by name.
func (s Timing) Get(name string) (float64, bool) {
	for _, f := range s.Figures {
		if f.Name == name {
			return f.Value, true
		}
	}
	return 0, false
}

// Figure is one derived number with the formula that produced it.
type Figure struct {
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit"`
	Formula string  `json:"formula"`
	// Interval is a tail percentile's distribution-free interval, with n.
	Interval *OrderInterval `json:"order_interval,omitempty"`
}

// OrderInterval is a percentile's distribution-free interval from order statistics
// (harness/timing's rule): a side no sample bounds is open (its order 0).
type OrderInterval struct {
	N          int     `json:"n"`
	Level      float64 `json:"level"`
	Lower      float64 `json:"lower,omitempty"`
	LowerOrder int     `json:"lower_order,omitempty"` // j (1-based); 0: no sample bounds it from below
	Upper      float64 `json:"upper,omitempty"`
	UpperOrder int     `json:"upper_order,omitempty"` // k (1-based); 0: no sample bounds it from above
}
