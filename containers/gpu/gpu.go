// Package gpu turns a GPU request ("none", "all", "auto", or device ids) into Docker device
// requests. "auto" asks the engine: with an nvidia runtime it passes every GPU through, without
// one it runs on the CPU and says so in a notice that the evidence records. An explicit request
// on an engine without GPUs is an error: the suite never silently changes what it qualifies.
package gpu

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/moby/moby/api/types/container"
)

// Request is what the target or the user asked for.
type Request struct {
	Mode string   // "none", "all", "auto" or "ids"
	IDs  []string // with Mode "ids"
}

// Parse reads "none", "all", "auto" or a comma-separated list of device ids.
func Parse(spec string) (Request, error) {
	switch s := strings.TrimSpace(spec); s {
	case "", "none", "cpu":
		return Request{Mode: "none"}, nil
	case "all", "auto":
		return Request{Mode: s}, nil
	default:
		var ids []string
		for _, id := range strings.Split(s, ",") {
			if id = strings.TrimSpace(id); id == "" {
				return Request{}, fmt.Errorf("gpu spec %q has an empty device id", spec)
			}
			ids = append(ids, id)
		}
		return Request{Mode: "ids", IDs: ids}, nil
	}
}

// Decision is what will be passed to Docker and why.
type Decision struct {
	Requests []container.DeviceRequest `json:"-"`
	Passed   string                    `json:"passed"` // "none", "all" or the ids
	Notice   string                    `json:"notice,omitempty"`
}

// Decide builds the device requests given whether the engine has an nvidia runtime.
func Decide(r Request, engineHasNvidia bool) (Decision, error) {
	gpuCaps := [][]string{{"gpu"}}
	switch r.Mode {
	case "none":
		return Decision{Passed: "none"}, nil
	case "auto":
		if !engineHasNvidia {
			return Decision{Passed: "none", Notice: "gpu=auto: the Docker engine reports no nvidia runtime; running on the CPU"}, nil
		}
		return Decision{Passed: "all", Requests: []container.DeviceRequest{{Driver: "nvidia", Count: -1, Capabilities: gpuCaps}}}, nil
	case "all", "ids":
		if !engineHasNvidia {
			return Decision{}, fmt.Errorf("gpu=%s requested, but the Docker engine reports no nvidia runtime: install the NVIDIA container toolkit or use gpu=auto/none", r.Mode)
		}
		if r.Mode == "all" {
			return Decision{Passed: "all", Requests: []container.DeviceRequest{{Driver: "nvidia", Count: -1, Capabilities: gpuCaps}}}, nil
		}
		return Decision{Passed: strings.Join(r.IDs, ","), Requests: []container.DeviceRequest{{Driver: "nvidia", DeviceIDs: r.IDs, Capabilities: gpuCaps}}}, nil
	}
	return Decision{}, fmt.Errorf("unknown gpu mode %q", r.Mode)
}

// EngineHasNvidia asks the engine for its runtimes.
func EngineHasNvidia(ctx context.Context) (bool, error) {
	out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{json .Runtimes}}").Output()
	if err != nil {
		return false, fmt.Errorf("docker info: %w", err)
	}
	var runtimes map[string]any
	if err := json.Unmarshal(out, &runtimes); err != nil {
		return false, fmt.Errorf("docker info runtimes %q: %w", out, err)
	}
	_, ok := runtimes["nvidia"]
	return ok, nil
}
