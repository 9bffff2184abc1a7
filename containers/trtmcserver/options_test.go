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
	if bundles["/host/dir/b.bundle"] != "/bundles/b.bundle" || len(files) != 2 || files[0].ContainerFilePath != "/data/clip.wav" {
		t.Errorf("files %+v bundles %v", files, bundles)
	}
	key, _ := io.ReadAll(files[1].Reader)
	if string(key) != "k" || files[1].ContainerFilePath != apiKeyPath {
		t.Errorf("API key file %q at %s", key, files[1].ContainerFilePath)
	}
	if o.env["A"] != "1" || o.env["B"] != "2" || o.gpu.Mode != "all" || o.startupTimeout != time.Minute {
		t.Errorf("options %+v", o)
	}
}

// A TRTMC serving image gets its own command line; the bundles are still mounted.
func TestWithCommandReplacesTheReferenceCommand(t *testing.T) {
	o, _ := apply([]testcontainers.ContainerCustomizer{WithBundles("/host/a.bundle"), WithCommand("python", "-m", "serve")})
	args, _, _ := o.commandLine()
	if strings.Join(args, " ") != "python -m serve" || strings.Join(o.mounts(), " ") != "/host/a.bundle:/bundles/a.bundle:ro" {
		t.Errorf("args %v mounts %v", args, o.mounts())
	}
}

// The served bundle is bind-mounted read-only, never copied: no bundle of any option set is
// among the files copied in, and every bundle is mounted :ro at the path --bundle names.
func TestBundlesAreMountedReadOnlyNotCopied(t *testing.T) {
	for _, opts := range [][]testcontainers.ContainerCustomizer{
		{WithBundles("/host/a.bundle")},
		{WithBundles("/host/a.bundle", "/h/b.bundle"), WithCommand("python", "-m", "serve"), WithReadOnlyDir("/trtmc")},
		{WithBundles("/w/pytest-tmp/x.bundle"), WithFile("/host/clip.wav", "/data/clip.wav"), WithScratch("/s", "/scratch"), WithAPIKey("k")},
	} {
		o, _ := apply(opts)
		_, files, bundles := o.commandLine()
		mounts := strings.Join(o.mounts(), " ")
		for host, inside := range bundles {
			if !strings.Contains(" "+mounts+" ", " "+host+":"+inside+":ro ") {
				t.Errorf("bundle %s is not mounted read-only at %s: %s", host, inside, mounts)
			}
			for _, f := range files {
				if f.HostFilePath == host || f.ContainerFilePath == inside {
					t.Errorf("bundle %s is copied into the container (%+v)", host, f)
				}
			}
		}
		if len(bundles) == 0 {
			t.Error("no bundle served")
		}
	}
}
