package images

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestVerboseStreamsStepOutput(t *testing.T) {
	var log bytes.Buffer
	b := &Builder{Log: &log, Verbose: true}
	if err := b.run(context.Background(), nil, "sh", "-c", "echo step one; echo step two >&2"); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); !strings.Contains(got, "step one") || !strings.Contains(got, "step two") {
		t.Errorf("verbose log %q lacks the step's output", got)
	}
}

func TestQuietKeepsOutputForTheFailure(t *testing.T) {
	var log bytes.Buffer
	b := &Builder{Log: &log}
	err := b.output(exec.Command("sh", "-c", "echo the reason >&2; exit 3"))
	if err == nil || !strings.Contains(err.Error(), "the reason") {
		t.Fatalf("failure %v must carry the output's tail", err)
	}
	if log.Len() != 0 {
		t.Errorf("quiet builder logged %q", log.String())
	}
}
