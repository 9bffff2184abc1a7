package verify

// hardwareScrapeCheck: the machine and toolchain the run records are the ones its server
// reported on its own /metrics while AIPerf scraped it (checkHardwareScrape).
func hardwareScrapeCheck(r *Run) []Problem {
	return r.eachRow(func(row *Row, report reporter) {
		if row.Result.AIPerf != nil && row.Result.AIPerf.Dir != "" {
			checkHardwareScrape(r.Dir, row, report)
		}
	})
}

// checkHardwareScrape compares a Go server's runtime gauges, as AIPerf scraped them in each run
// (server_metrics_export.json), with the stage's recorded hardware and versions:
// go_sched_gomaxprocs_threads is the CPUs the server could run on (Go sizes GOMAXPROCS to the
// machine's CPUs, or a container's CPU limit, which no target here sets), so it must be the
// recorded core count; go_info's version is the toolchain that built the server, the one the
// run's binaries were built with (versions.go). A target whose server exports them (the
// reference) must have them in every run; a server without them (TRTMC's Python app) is not compared.
func checkHardwareScrape(runDir string, row *Row, report reporter) {
	for _, dir := range artifactRunDirs(runDir, row.Result.AIPerf.Dir) {
		path := scrapeFile(dir)
		procs, goVersion, ok := scrapedRuntime(row.scrapeIn(dir))
		where := relTo(runDir, path)
		if !ok {
			if kindOf(row.Stage.TargetKind).ExportsTaskMetrics() {
				report(where, "no go_sched_gomaxprocs_threads or go_info in this AIPerf run's /metrics scrape: the %s target's server exports both, the second copy of the recorded cores and Go version", row.Stage.TargetKind)
			}
			continue
		}
		if cores := row.Stage.Hardware.Cores; procs != 0 && procs != cores {
			report(where, "the server's /metrics says it ran on %d CPUs (go_sched_gomaxprocs_threads); stage %s records %d cores", procs, row.Stage.Stage, cores)
		}
		if v := row.Stage.Versions["go"]; goVersion != "" && v != goVersion {
			report(where, "the server's /metrics says it was built with %s (go_info); stage %s records go %s", goVersion, row.Stage.Stage, v)
		}
	}
}

// scrapedRuntime is the server's GOMAXPROCS and Go version in a run's scrape; ok is false when
// the run has none, it is unreadable (scrapeCheck names it) or it holds neither gauge.
func scrapedRuntime(scrape serverScrape) (procs int, goVersion string, ok bool) {
	if !scrape.present || scrape.err != nil {
		return 0, "", false
	}
	for _, s := range scrape.metrics["go_sched_gomaxprocs_threads"].Series {
		if s.Stats.Max != nil {
			procs, ok = int(*s.Stats.Max), true
			if s.Stats.Min != nil && *s.Stats.Min != *s.Stats.Max {
				procs = -1 // changed during the run: no single count, never a machine's
			}
		}
	}
	for _, s := range scrape.metrics["go_info"].Series {
		if v := s.Labels["version"]; v != "" {
			goVersion, ok = v, true
		}
	}
	return procs, goVersion, ok
}
