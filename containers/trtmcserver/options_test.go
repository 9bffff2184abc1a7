package trtmcserver

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/trtmc-qual/trtmc-qual/containers/gpu"
)

// Module options and generic customizers go to Run in one list.
var _ testcontainers.ContainerCustomizer = WithLanes(1, 1)

func TestDefaults(t *testing.T) {
	o, rest := apply(nil)
	args, files, bundles := o.commandLine()
	if len(rest) != 0 || len(files) != 0 || len(bundles) != 0 || o.gpu.Mode != "none" || o.alias != "trtmc-server" || o.startupTimeout != 5*time.Minute {
		t.Errorf("defaults: %+v %v", o, rest)
	}
	if strings.Join(args, " ") != "--addr 0.0.0.0:8000 --records /records/records.jsonl --lanes 2 --queue 64" {
		t.Errorf("default command: %v", args)
	}
}

func TestOptionsShapeTheCommandAndFiles(t *testing.T) {
	label := testcontainers.WithLabels(map[string]string{"run": "x"})
	o, rest := apply([]testcontainers.ContainerCustomizer{
		WithBundles("/host/a.bundle", "/host/dir/b.bundle"), WithLanes(3, 7), WithAPIKey("k"),
		WithFile("/host/clip.wav", "/data/clip.wav"), WithEnv(map[string]string{"A": "1"}), WithEnv(map[string]string{"B": "2"}),
		WithGPU(gpu.Request{Mode: "all"}), WithStartupTimeout(time.Minute), label,
	})
	if len(rest) != 1 {
		t.Fatalf("the generic customizer was not passed on: %v", rest)
	}
	args, files, bundles := o.commandLine()
	want := "--addr 0.0.0.0:8000 --records /records/records.jsonl --lanes 3 --queue 7 --bundle /bundles/a.bundle --bundle /bundles/b.bundle --api-key-file /tmp/qual-api-key"
	if strings.Join(args, " ") != want {
		t.Errorf("command %v", args)
	}
	if bundles["/host/dir/b.bundle"] != "/bundles/b.bundle" || len(files) != 4 || files[0].ContainerFilePath != "/data/clip.wav" {
		t.Errorf("files %+v bundles %v", files, bundles)
	}
	key, _ := io.ReadAll(files[3].Reader)
	if string(key) != "k" || files[3].ContainerFilePath != apiKeyPath {
		t.Errorf("API key file %q at %s", key, files[3].ContainerFilePath)
	}
	if o.env["A"] != "1" || o.env["B"] != "2" || o.gpu.Mode != "all" || o.startupTimeout != time.Minute {
		t.Errorf("options %+v", o)
	}
}

// A TRTMC serving image gets its own command line; the bundles are still copied in.
func TestWithCommandReplacesTheReferenceCommand(t *testing.T) {
	o, _ := apply([]testcontainers.ContainerCustomizer{WithBundles("/host/a.bundle"), WithCommand("python", "-m", "serve")})
	args, files, _ := o.commandLine()
	if strings.Join(args, " ") != "python -m serve" || len(files) != 1 || files[0].ContainerFilePath != "/bundles/a.bundle" {
		t.Errorf("args %v files %+v", args, files)
	}
}
