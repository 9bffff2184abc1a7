package server

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus series, on a registry of its own (no global state).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	errors   *prometheus.CounterVec
	taskCall *prometheus.HistogramVec
	inFlight prometheus.Gauge
	// taskCancelled counts Task calls that returned because their context was cancelled:
	// the client went away and the Task stopped between steps instead of computing on.
	taskCancelled *prometheus.CounterVec
}

func newMetrics(queueDepth func() map[string]int64, idsForgotten, recordsFailed func() uint64, tasksRunning func() int, bodyMem *bodyMemory) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trtmc_requests_total", Help: "Requests by route, model and status.",
		}, []string{"route", "model", "status"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trtmc_errors_total", Help: "Error responses by stable error code.",
		}, []string{"code"}),
		taskCall: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "trtmc_task_call_seconds", Help: "Wall time of one public Task call (public_task_call_wall).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"model", "task"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "trtmc_requests_in_flight", Help: "Requests inside a handler now (health and metrics excluded).",
		}),
		taskCancelled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trtmc_task_cancelled_total", Help: "Task calls that stopped early because their request was cancelled.",
		}, []string{"model", "task"}),
	}
	forgotten := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "trtmc_request_ids_forgotten_total",
		Help: "Client request ids dropped from the lifetime duplicate check to keep it under its cap.",
	}, func() float64 { return float64(idsForgotten()) })
	unrecorded := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "trtmc_records_failed_total",
		Help: "Records that could not be written; each such request was answered 503 records_unavailable instead.",
	}, func() float64 { return float64(recordsFailed()) })
	running := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "trtmc_task_calls_running",
		Help: "Task calls running now, including those whose request already answered (client gone, drain aborted).",
	}, func() float64 { return float64(tasksRunning()) })
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "trtmc_body_memory_bytes",
		Help: "Bytes requests hold because of their bodies (buffers, decoded audio and samples, parsed JSON and form parts, outgrown buffers), as accounted against --body-memory-mb.",
	}, func() float64 { return float64(bodyMem.used.Load()) })
	bound := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "trtmc_body_memory_limit_bytes", Help: "The bound of trtmc_body_memory_bytes (--body-memory-mb).",
	}, func() float64 { return float64(bodyMem.limit) })
	depth := prometheus.NewDesc("trtmc_queue_depth", "Requests waiting for a lane.", []string{"model"}, nil)
	m.registry.MustRegister(m.requests, m.errors, m.taskCall, m.inFlight, m.taskCancelled, forgotten, unrecorded, running, held, bound,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		gaugeFunc{desc: depth, values: queueDepth})
	return m
}

// gaugeFunc reports the queue depth of every model at scrape time.
type gaugeFunc struct {
	desc   *prometheus.Desc
	values func() map[string]int64
}

func (g gaugeFunc) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g gaugeFunc) Collect(ch chan<- prometheus.Metric) {
	for model, v := range g.values() {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(v), model)
	}
}
