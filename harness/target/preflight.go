package target

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Preflight compares one fact of this machine with the serving image before the first build:
// the build, inspect and gate run host-built binaries on the host, and serving and the native twins
// run those same files inside TRTMC's image (TensorRT 11.1.0.106 at e9132e79). A mismatch would
// surface only after a full build and gate, hours later; preflight stops the run at once.
type Preflight struct {
	Name   string   `yaml:"name"`
	Host   []string `yaml:"host"`   // run on this machine, in the build's environment
	Image  []string `yaml:"image"`  // run in a container of the serving image, checkout mounted
	Output string   `yaml:"output"` // "" (the text, trimmed) | ldd (the libraries and whether each resolves)
}

// PreflightResult is one fact on both sides.
type PreflightResult struct {
	Name  string `json:"name"`
	Host  string `json:"host"`
	Image string `json:"image"`
}

// CheckPreflight runs every preflight on the host and in the image (each through its Runner) and
// fails on the first fact that differs, naming both; a fact that cannot be read on either side
// also fails (nothing is assumed equal).
func (t *Target) CheckPreflight(ctx context.Context, host, image Runner) ([]PreflightResult, error) {
	v := t.Values()
	env, err := t.Environ(v)
	if err != nil {
		return nil, err
	}
	var out []PreflightResult
	for _, p := range t.Preflight {
		r := PreflightResult{Name: p.Name}
		for _, side := range []struct {
			name string
			tmpl []string
			run  Runner
			dst  *string
		}{{"host", p.Host, host, &r.Host}, {"image", p.Image, image, &r.Image}} {
			args, err := Expand(side.tmpl, v)
			if err != nil {
				return out, fmt.Errorf("preflight %s (%s): %w", p.Name, side.name, err)
			}
			got, runErr := side.run(ctx, args, env, t.Root)
			if *side.dst, err = preflightFact(p.Output, string(got), runErr); err != nil {
				return out, fmt.Errorf("preflight %s: cannot read it on the %s: %w", p.Name, side.name, err)
			}
		}
		out = append(out, r)
		if r.Host != r.Image {
			return out, fmt.Errorf("preflight %s: the host has %s, the serving image has %s: host-built TRTMC binaries would not run as built in the image (build on a host that matches the image, or name a matching image with QUAL_TRTMC_IMAGE)", p.Name, r.Host, r.Image)
		}
		if strings.Contains(r.Image, "not found") {
			return out, fmt.Errorf("preflight %s: in the serving image %s", p.Name, r.Image)
		}
	}
	return out, nil
}

// preflightFact is a command's answer as compared: its trimmed text, or for ldd each library
// with "resolved" or "not found" (paths differ legitimately between host and image).
func preflightFact(format, out string, runErr error) (string, error) {
	if format != "ldd" {
		if runErr != nil {
			return "", runErr
		}
		return strings.TrimSpace(out), nil
	}
	if runErr != nil {
		if strings.Contains(runErr.Error(), "not a dynamic executable") {
			return "(not a dynamic executable)", nil
		}
		return "", runErr
	}
	var libs []string
	for _, line := range strings.Split(out, "\n") {
		name, where, ok := strings.Cut(strings.TrimSpace(line), "=>")
		if !ok {
			continue // the vDSO and the loader carry no "=>"
		}
		state := "resolved"
		if strings.Contains(where, "not found") {
			state = "not found"
		}
		libs = append(libs, strings.TrimSpace(name)+" "+state)
	}
	sort.Strings(libs)
	return "[" + strings.Join(libs, ", ") + "]", nil
}
