package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Each wrong invocation gets its message and exit status 2; a failing command gets 1.
func TestWrongInvocationsExit2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Usage:"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"inventory", "--target", "../../../suites/targets/reference.yaml", "--stage", "foo"}, 2, `unknown stage "foo" (stages: asr, audioqa, t2i)`},
		{[]string{"report", "/nonexistent/run"}, 1, "qual report:"},
		{[]string{"help"}, 0, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := runQual(context.Background(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("qual %v: exit %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, stderr.String(), tc.want)
		}
	}
}
