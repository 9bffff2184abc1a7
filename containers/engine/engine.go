// Package engine holds what the suite needs from the Docker engine on machines like this one.
package engine

import (
	"os"
	"os/exec"
)

// ReaperImage is the image testcontainers' reaper (Ryuk) would pull.
const ReaperImage = "testcontainers/ryuk:0.14.0"

// ApplyTestcontainersDefaults sets, when the user has not, the two settings testcontainers-go
// needs on an offline machine that looks like a container: no reaper when its image cannot be
// found locally (it cannot be pulled; cleanup is DeferCleanup's job), and the Docker host as
// localhost. The Makefile exports the same values; this makes `go test` and `go tool ginkgo`
// run directly behave the same. It must run before the first container starts, because
// testcontainers reads its configuration once per process.
func ApplyTestcontainersDefaults() {
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		if exec.Command("docker", "image", "inspect", ReaperImage).Run() != nil {
			os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
	}
	if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); !set && os.Getenv("DOCKER_HOST") == "" {
		os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	}
}
