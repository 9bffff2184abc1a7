package sysinfo

import (
	"context"
	"runtime"
	"testing"
)

func TestProcParsing(t *testing.T) {
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: x\nmodel name\t: other\n"); got != "AMD EPYC 7B13" {
		t.Errorf("cpu %q", got)
	}
	if got := memoryGB("MemTotal:       16777216 kB\nMemFree: 1 kB\n"); got != 16 {
		t.Errorf("memory %v", got)
	}
	for _, bad := range []string{"", "MemTotal:\n", "MemTotal: lots kB\n"} {
		if got := memoryGB(bad); got != 0 {
			t.Errorf("memory of %q: %v", bad, got)
		}
	}
}

func TestVersionsNameWhatRan(t *testing.T) {
	v := Versions(context.Background(), "/nonexistent", "", "0.13.0")
	if v["aiperf"] != "0.13.0 (required)" || v["go"] != runtime.Version() || v["trtmc-qual"] != "unknown" {
		t.Errorf("%v", v)
	}
	if v := Versions(context.Background(), ".", "0.13.0", "0.13.0"); v["aiperf"] != "0.13.0" {
		t.Errorf("ran: %v", v)
	}
	if h := Hardware(""); h.GPU != "none" || h.Cores != runtime.NumCPU() {
		t.Errorf("%+v", h)
	}
}
