package family

import (
	"flag"
	"slices"
	"testing"
)

// A Host written as flags by Args is read back by HostFlags: the checkpoint and qual verify
// --rerun hand trtmc-native the machine's cache and interpreter this way.
func TestHostArgsRoundTripThroughHostFlags(t *testing.T) {
	for _, h := range []Host{{}, {Cache: "/c"}, {Python: "/p/python"}, {Cache: "/c", Python: "/p/python"}} {
		fs := flag.NewFlagSet("trtmc-native", flag.ContinueOnError)
		got := HostFlags(fs)
		if err := fs.Parse(h.Args()); err != nil {
			t.Fatalf("%+v: %v", h, err)
		}
		if *got != h {
			t.Errorf("Args %v read back as %+v, want %+v", h.Args(), *got, h)
		}
	}
	if args := (Host{}).Args(); len(args) != 0 {
		t.Errorf("an empty host gives flags %v", args)
	}
	if args := (Host{Cache: "/c"}).Args(); !slices.Equal(args, []string{"--cache", "/c"}) {
		t.Errorf("args %v", args)
	}
}
