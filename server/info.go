package server

import (
	"net/http"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

func (s *Server) listModels(*exchange) (*reply, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	data := make([]contract.ModelEntry, 0, len(s.order))
	for _, name := range s.order {
		data = append(data, modelEntry(s.models[name]))
	}
	return &reply{status: http.StatusOK, json: &contract.ModelList{Object: "list", Data: data}}, nil
}

// retrieveModel is GET /v1/models/{id}: one entry, or 404 model_not_found.
func (s *Server) retrieveModel(x *exchange) (*reply, error) {
	id := strings.TrimPrefix(x.r.URL.Path, "/v1/models/")
	s.mu.RLock()
	m, ok := s.models[id]
	s.mu.RUnlock()
	if !ok {
		return nil, errModelNotFound(id, s.order)
	}
	entry := modelEntry(m)
	return &reply{status: http.StatusOK, json: &entry}, nil
}

func modelEntry(m *servedModel) contract.ModelEntry {
	return contract.ModelEntry{ID: m.name, Object: "model", Created: m.loaded.Unix(), OwnedBy: "trtmc-qual"}
}

// taskInfos puts the native Task descriptions on the wire.
func taskInfos(infos []task.Info) []contract.TaskInfo {
	out := make([]contract.TaskInfo, 0, len(infos))
	for _, in := range infos {
		ti := contract.TaskInfo{Name: string(in.Name), Controls: make([]contract.TaskControl, 0, len(in.Controls))}
		for _, c := range in.Controls {
			ti.Controls = append(ti.Controls, contract.TaskControl{Name: c.Name, Kind: c.Kind, Default: c.Default, Description: c.Description})
		}
		out = append(out, ti)
	}
	return out
}

func (s *Server) servingInfo(*exchange) (*reply, error) {
	models := make([]contract.ModelInfo, 0, len(s.order))
	for _, name := range s.order {
		m := s.models[name]
		h := m.bundle.Header
		models = append(models, contract.ModelInfo{ID: name, BundlePath: m.path, BundleSHA256: m.bundle.SHA256, BundleBytes: m.bundle.Size,
			Family: h.Family, Task: h.Task, Backend: h.Backend, Profile: h.Profile, Precision: h.Precision,
			Checkpoint: h.Checkpoint, Revision: h.Revision, Tasks: taskInfos(m.model.Tasks()), Lanes: cap(m.lanes),
			QueueDepth: m.queueDepth(), MaxQueue: m.maxQueue})
	}
	return &reply{status: http.StatusOK, json: &contract.ServingInfo{Server: "trtmc-server", Ready: s.ready.Load(), Models: models}}, nil
}

func (s *Server) live(*exchange) (*reply, error) {
	return &reply{status: http.StatusOK, json: &contract.Health{Status: "live", Time: time.Now().UTC().Format(time.RFC3339Nano)}}, nil
}

func (s *Server) readiness(*exchange) (*reply, error) {
	if !s.ready.Load() {
		return nil, newError(http.StatusServiceUnavailable, contract.CodeNotReady, "not ready: bundles loading or server draining")
	}
	if s.records.failing.Load() {
		return nil, errRecordsUnavailable()
	}
	return &reply{status: http.StatusOK, json: &contract.Health{Status: "ready", Models: s.order}}, nil
}
