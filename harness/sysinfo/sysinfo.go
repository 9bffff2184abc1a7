// Package sysinfo describes where a run happened: the versions the evidence depends on and
// the machine's hardware. It only reads (commands' version output, /proc), never changes
// anything, and reports "unknown" rather than failing a run over a missing tool.
package sysinfo

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Versions of everything the evidence depends on: Go, AIPerf (the version a run reported,
// else the required one marked as such), the Docker engine, PocketSphinx, this checkout and the
// Go build tags of this binary and of the given binaries (build_tags: "none" for a normal build,
// "qual_slowdown" for the test build that slows one Task).
func Versions(ctx context.Context, root, aiperfRan, aiperfRequired string, binaries ...string) map[string]string {
	out := map[string]string{"go": runtime.Version(), "aiperf": aiperfRequired + " (required)"}
	if aiperfRan != "" {
		out["aiperf"] = aiperfRan
	}
	out["docker_engine"] = output(ctx, "docker", "version", "-f", "{{.Server.Version}}")
	out["pocketsphinx"] = output(ctx, "dpkg-query", "-W", "-f", "${Version}", "libpocketsphinx3")
	out["trtmc-qual"] = output(ctx, "git", "-C", root, "describe", "--always", "--dirty")
	out["build_tags"] = BuildTagsValue(BuildTags(binaries...))
	return out
}

func output(ctx context.Context, name string, args ...string) string {
	b, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// Hardware describes this machine; gpu is what the run passed through ("none" when nothing).
func Hardware(gpu string) evidence.Hardware {
	h := evidence.Hardware{Cores: runtime.NumCPU(), GPU: "none"}
	if gpu != "" {
		h.GPU = gpu
	}
	if host, err := os.Hostname(); err == nil {
		h.Host = host
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		h.CPU = cpuModel(string(data))
		h.CPUFlags = cpuField(string(data), "flags")
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		h.MemoryGB = memoryGB(string(data))
	}
	return h
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string { return cpuField(cpuinfo, "model name") }

// cpuField is the value of the first line of /proc/cpuinfo named key ("" when absent).
func cpuField(cpuinfo, key string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(name) == key {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// memoryGB is MemTotal of /proc/meminfo in GiB (0 when absent or unreadable).
func memoryGB(meminfo string) float64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return 0
			}
			kb, err := strconv.ParseFloat(fields[0], 64)
			if err != nil {
				return 0
			}
			return kb / 1024 / 1024
		}
	}
	return 0
}
