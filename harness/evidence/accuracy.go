package evidence

// Accuracy is one of the gate's corpus figures with its bootstrap interval and the verdict against
// the pinned bound. Exact native/HTTP identity stays exact; this is only about
// how sure the corpus figure is to be within its bound.
type Accuracy struct {
	Figure string          `json:"figure"`
	Value  float64         `json:"value"`
	Bound  float64         `json:"bound"`
	Side   string          `json:"side"` // "≤" or "≥"
	Lower  float64         `json:"p05"`  // the figure's bootstrap 5th percentile
	Upper  float64         `json:"p95"`  // and 95th
	Test   *NonInferiority `json:"test"`
	// ClusterBy says what the bootstrap resampled; Groups are the speaker/recording groups the
	// pinned dataset declares for the gate's clips (clip id → group; a clip absent stands alone).
	ClusterBy string            `json:"cluster_by"`
	Groups    map[string]string `json:"groups,omitempty"`
}
