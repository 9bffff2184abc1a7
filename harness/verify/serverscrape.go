package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

// serverScrape is one AIPerf run's server_metrics_export.json (AIPerf's scrapes of the server's
// own /metrics), read and parsed once with the row for every check that compares it with the
// run: the Task-call histogram (scrape.go) and the runtime gauges (hardwarescrape.go).
type serverScrape struct {
	present bool  // the run holds a scrape (a server without /metrics leaves none)
	err     error // why a present scrape could not be read, or is not AIPerf's export
	metrics map[string]scrapedMetric
	warmup  map[string]scrapedMetric // the warmup window's section
}

// warmupWindow is the scrape's warmup section as a scrape of its own.
func (s serverScrape) warmupWindow() serverScrape {
	s.metrics = s.warmup
	return s
}

type scrapedMetric struct {
	Series []scrapedSeries `json:"series"`
}

// scrapedSeries is one labelled series of a metric over the profiling window: the fields either
// check reads (a field of the wrong type fails the parse for both).
type scrapedSeries struct {
	Labels map[string]string `json:"labels"`
	Stats  struct {
		Count *float64 `json:"count"`
		Sum   *float64 `json:"sum"`
		Avg   *float64 `json:"avg"`
		Min   *float64 `json:"min"`
		Max   *float64 `json:"max"`
	} `json:"stats"`
	Buckets map[string]float64 `json:"buckets"`
}

// scrapeFile is where an AIPerf run directory keeps its scrape.
func scrapeFile(runDir string) string { return filepath.Join(runDir, "server_metrics_export.json") }

// loadScrapes reads the scrape of each AIPerf run of a row that has an artifact directory.
func loadScrapes(runDir, aiperfDir string) map[string]serverScrape {
	out := map[string]serverScrape{}
	for _, dir := range artifactRunDirs(runDir, aiperfDir) {
		out[dir] = readScrape(scrapeFile(dir))
	}
	return out
}

func readScrape(path string) serverScrape {
	if _, err := os.Lstat(path); err != nil {
		return serverScrape{}
	}
	s := serverScrape{present: true}
	data, err := runfile.ReadFile(path)
	if err != nil {
		s.err = err
		return s
	}
	var export struct {
		Metrics map[string]scrapedMetric `json:"metrics"`
		Warmup  map[string]scrapedMetric `json:"warmup_metrics"`
	}
	if err := json.Unmarshal(data, &export); err != nil {
		s.err = fmt.Errorf("not AIPerf's server-metrics export: %w", err)
		return s
	}
	s.metrics, s.warmup = export.Metrics, export.Warmup
	return s
}

// scrapeIn is the scrape of the row's AIPerf run in dir (one of artifactRunDirs), as loaded with
// the row.
func (row *Row) scrapeIn(dir string) serverScrape {
	if s, ok := row.Scrapes[dir]; ok {
		return s
	}
	return readScrape(scrapeFile(dir))
}
