package images

import (
	"reflect"
	"testing"
)

func TestCheckoutCommandPassesOnlySetArgsInOrder(t *testing.T) {
	c := CheckoutBuild{Dockerfile: "/co/Dockerfile", Context: "/co", Target: "ci-runtime",
		Args: map[string]string{"Z": "z", "CUDA_IMAGE": "base:1", "EMPTY": ""}}
	want := []string{"docker", "build", "-f", "/co/Dockerfile", "--iidfile", "/tmp/iid", "--target", "ci-runtime",
		"--build-arg", "CUDA_IMAGE=base:1", "--build-arg", "Z=z", "/co"}
	if got := c.Command("/tmp/iid"); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	c.Target = ""
	if got := c.Command("/tmp/iid"); len(got) != len(want)-2 {
		t.Fatalf("no target: %q", got)
	}
}
