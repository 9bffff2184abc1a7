package server

import (
	"net/http"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

func (s *Server) listModels(*exchange) (*reply, error) {
	data := make([]map[string]any, 0, len(s.order))
	for _, name := range s.order {
		data = append(data, map[string]any{"id": name, "object": "model", "owned_by": "trtmc-qual"})
	}
	return &reply{status: http.StatusOK, json: map[string]any{"object": "list", "data": data}}, nil
}

// ModelInfo is one model in /v1/serving/info.
type ModelInfo struct {
	ID           string      `json:"id"`
	BundlePath   string      `json:"bundle_path"`
	BundleSHA256 string      `json:"bundle_sha256"`
	BundleBytes  int64       `json:"bundle_bytes"`
	Family       string      `json:"family"`
	Task         string      `json:"task"`
	Backend      string      `json:"backend"`
	Profile      string      `json:"profile"`
	Precision    string      `json:"precision"`
	Checkpoint   string      `json:"checkpoint"`
	Revision     string      `json:"revision"`
	Tasks        []task.Info `json:"tasks"`
	Lanes        int         `json:"lanes"`
	QueueDepth   int64       `json:"queue_depth"`
	MaxQueue     int64       `json:"max_queue"`
}

// ServingInfo is the body of /v1/serving/info.
type ServingInfo struct {
	Server string      `json:"server"`
	Ready  bool        `json:"ready"`
	Models []ModelInfo `json:"models"`
}

func (s *Server) servingInfo(*exchange) (*reply, error) {
	models := make([]any, 0, len(s.order))
	for _, name := range s.order {
		m := s.models[name]
		h := m.bundle.Header
		models = append(models, ModelInfo{ID: name, BundlePath: m.path, BundleSHA256: m.bundle.SHA256, BundleBytes: m.bundle.Size,
			Family: h.Family, Task: h.Task, Backend: h.Backend, Profile: h.Profile, Precision: h.Precision,
			Checkpoint: h.Checkpoint, Revision: h.Revision, Tasks: m.model.Tasks(), Lanes: cap(m.lanes),
			QueueDepth: m.queueDepth(), MaxQueue: m.maxQueue})
	}
	return &reply{status: http.StatusOK, json: map[string]any{"server": "trtmc-server", "ready": s.ready.Load(), "models": models}}, nil
}

func (s *Server) live(*exchange) (*reply, error) {
	return &reply{status: http.StatusOK, json: map[string]any{"status": "live", "time": time.Now().UTC().Format(time.RFC3339Nano)}}, nil
}

func (s *Server) readiness(*exchange) (*reply, error) {
	if !s.ready.Load() {
		return nil, newError(http.StatusServiceUnavailable, CodeNotReady, "not ready: bundles loading or server draining")
	}
	return &reply{status: http.StatusOK, json: map[string]any{"status": "ready", "models": s.order}}, nil
}
