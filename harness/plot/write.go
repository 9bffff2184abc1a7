package plot

import (
	"fmt"
	"os"
)

// WriteLatencySVG draws one checkpoint's measured requests — the empirical CDF of client
// latency and of Task time, and the per-request overhead between them — as an SVG file.
// clientMS[i] and taskMS[i] are the same request.
func WriteLatencySVG(path, title string, clientMS, taskMS []float64) error {
	svg, err := Latency{Title: title, ClientMS: clientMS, TaskMS: taskMS}.SVG()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return fmt.Errorf("write latency plot: %w", err)
	}
	return nil
}
