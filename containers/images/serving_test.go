package images

import (
	"strings"
	"testing"
)

// The serving wheelhouse is resolved for the image's own interpreter: TRTMC's images are Ubuntu
// 24.04 (CPython 3.12, glibc 2.39) and may be aarch64; the contract double's is Debian's 3.11.
func TestServingWheelsMatchTheImagesInterpreter(t *testing.T) {
	args := strings.Join(Interpreter{Version: "3.12", Machine: "aarch64", Glibc: 39}.platformArgs(), " ")
	for _, want := range []string{"--python-version 3.12", "--abi cp312", "--platform manylinux_2_39_aarch64", "--platform manylinux_2_17_aarch64", "--platform manylinux2014_aarch64"} {
		if !strings.Contains(args, want) {
			t.Errorf("%q lacks %q", args, want)
		}
	}
	if strings.Contains(args, "x86_64") || strings.Contains(args, "cp311") {
		t.Errorf("%q names another interpreter's wheels", args)
	}
}
