// Package containertest starts what the container tests run AIPerf against: the images, an
// internal network and trtmc-server on one reference profile's bundle, each removed when the
// test ends. The containers package and containers/aiperf test against the same setup.
package containertest

import (
	"context"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"

	"github.com/trtmc-qual/trtmc-qual/containers/images"
	"github.com/trtmc-qual/trtmc-qual/containers/trtmcserver"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	st "github.com/trtmc-qual/trtmc-qual/server/servertest"
)

// StartServer finds the images, creates an internal network (removed at cleanup) and starts the
// server on the sphinx family's profile bundle (terminated at cleanup).
func StartServer(t *testing.T, profile string, opts ...testcontainers.ContainerCustomizer) (images.Set, *testcontainers.DockerNetwork, *trtmcserver.Container) {
	t.Helper()
	return StartServerWith(t, []string{st.BuildBundle(t, "sphinx", profile, t.TempDir())}, opts...)
}

// StartServerWith is StartServer serving the given bundle files.
func StartServerWith(t *testing.T, bundles []string, opts ...testcontainers.ContainerCustomizer) (images.Set, *testcontainers.DockerNetwork, *trtmcserver.Container) {
	t.Helper()
	ctx := context.Background()
	set := Images(t)
	nw, err := network.New(ctx, network.WithInternal())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Remove(context.Background()) })
	opts = append([]testcontainers.ContainerCustomizer{trtmcserver.WithBundles(bundles...), trtmcserver.WithNetwork(nw, "trtmc-server")}, opts...)
	srv, err := trtmcserver.Run(ctx, set.Server, opts...)
	if srv != nil && srv.DockerContainer != nil {
		t.Cleanup(func() { testcontainers.TerminateContainer(srv) })
	}
	if err != nil {
		t.Fatal(err)
	}
	return set, nw, srv
}

// Images finds (or builds, cached by input hash) the base, server and AIPerf images, as make
// images does.
func Images(t *testing.T) images.Set {
	t.Helper()
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	set, err := (&images.Builder{Log: Log{t}, BaseImage: cfg.BaseImage, CacheDir: cfg.Cache}).Ensure(context.Background(), st.RepoRoot())
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Log writes the image builder's lines to the test's log.
type Log struct{ T *testing.T }

func (l Log) Write(p []byte) (int, error) {
	l.T.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
