package main

import (
	"flag"
	"slices"
	"testing"
)

// TestRerunFlag: a bare --rerun keeps its meaning (every row) before the run directory, and
// --rerun=ROW,… names rows; an empty or padded name is refused, never read as "every row".
func TestRerunFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		on   bool
		rows []string
		err  bool
	}{
		{[]string{"reports/x"}, false, nil, false},
		{[]string{"--rerun", "reports/x"}, true, nil, false},
		{[]string{"reports/x", "--rerun"}, true, nil, false},
		{[]string{"--rerun=asr/whisper-tiny-en,procdiff-small", "reports/x"}, true, []string{"asr/whisper-tiny-en", "procdiff-small"}, false},
		{[]string{"--rerun=false", "reports/x"}, false, nil, false},
		{[]string{"--rerun=", "reports/x"}, false, nil, true},
		{[]string{"--rerun=a,,b", "reports/x"}, false, nil, true},
		{[]string{"--rerun=a, b", "reports/x"}, false, nil, true},
	} {
		fs := flag.NewFlagSet("verify", flag.ContinueOnError)
		f := &rerunFlag{}
		fs.Var(f, "rerun", "")
		err := parseArgs(fs, c.args)
		if (err != nil) != c.err {
			t.Errorf("%v: error %v", c.args, err)
			continue
		}
		if err != nil {
			continue
		}
		if f.on != c.on || !slices.Equal(f.rows, c.rows) || fs.Arg(0) != "reports/x" {
			t.Errorf("%v: on %v rows %v run %q", c.args, f.on, f.rows, fs.Arg(0))
		}
	}
}
