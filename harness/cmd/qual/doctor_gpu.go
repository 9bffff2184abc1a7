package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/inventory"
	"github.com/trtmc-qual/trtmc-qual/harness/target"
)

// servingStackFindings are what a GPU run of a TRTMC target needs beyond its CLI, each only where
// the target's rows need it: the serving worker (built only with -DTRTMC_BUILD_EXAMPLES=ON,
// apps/perf_serving/README.md @8bd797ae), the runtime libraries the family tests assert in
// {runtime_root} (libtrtmc_backend_trt.so, libtrtmc_model_<family>.so), cmake and a configured CTest
// tree where the gate's environment names TRTMC_NATIVE_BUILD_DIR (families/parakeet_tdt/tests/
// test_e2e.py @17d91ae1), and mpirun where a row is distributed (recorded as planned, never run:
// informational). Without them a row fails only after its hours-long build and gate.
func servingStackFindings(t *target.Target, rows []evidence.InventoryRow) []finding {
	values := t.Values()
	var out []finding
	if len(t.Server.Command) > 0 && t.ServingNote == "" && values["worker"] != "" {
		f := finding{what: "TRTMC serving worker", blocker: true, plannedWithout: true,
			fix: "build the checkout with -DTRTMC_BUILD_EXAMPLES=ON, or set QUAL_TRTMC_WORKER"}
		f.ok, f.detail = fileExists(values["worker"]), values["worker"]
		if !f.ok {
			f.detail += " does not exist"
		}
		out = append(out, f)
	}
	if root := values["runtime_root"]; root != "" {
		f := finding{what: "TRTMC runtime libraries", blocker: true, plannedWithout: true, ok: true,
			fix: "build the checkout's runtime (libtrtmc_*.so) into {runtime_root}, or set QUAL_TRTMC_RUNTIME_ROOT"}
		var missing []string
		for _, lib := range runtimeLibraries(rows) {
			if !fileExists(filepath.Join(root, lib)) {
				missing = append(missing, lib)
			}
		}
		f.ok, f.detail = len(missing) == 0, root
		if !f.ok {
			f.detail += " lacks " + strings.Join(missing, ", ")
		}
		out = append(out, f)
	}
	if _, named := t.Env["TRTMC_NATIVE_BUILD_DIR"]; named {
		tree, _ := target.Expand([]string{t.Env["TRTMC_NATIVE_BUILD_DIR"]}, values)
		f := finding{what: "cmake and the native CTest tree", blocker: true, plannedWithout: true,
			fix: "install cmake and configure the checkout's build tree (cmake -S . -B build), or set QUAL_TRTMC_NATIVE_BUILD"}
		_, cmakeErr := exec.LookPath("cmake")
		ctest := len(tree) == 1 && fileExists(filepath.Join(tree[0], "CTestTestfile.cmake"))
		f.ok = cmakeErr == nil && ctest
		f.detail = fmt.Sprintf("cmake on PATH: %v; CTestTestfile.cmake in %s: %v", cmakeErr == nil, strings.Join(tree, ""), ctest)
		out = append(out, f)
	}
	distributed := 0
	for _, r := range rows {
		if r.GPUs > 1 {
			distributed++
		}
	}
	if distributed > 0 {
		f := finding{what: "mpirun (distributed rows)", fix: "install an MPI (TRTMC runs TP/CP profiles under mpirun on multi-GPU runners)"}
		p, err := exec.LookPath("mpirun")
		f.ok, f.detail = err == nil, fmt.Sprintf("%d distributed row(s), recorded as planned either way", distributed)
		if f.ok {
			f.detail += "; " + p
		}
		out = append(out, f)
	}
	return out
}

// runtimeLibraries are the libraries the rows' families need in {runtime_root} (TRTMC-COMMANDS:
// libtrtmc_core.so, libtrtmc_runtime.so, libtrtmc_backend_<b>.so, libtrtmc_model_<family>.so).
func runtimeLibraries(rows []evidence.InventoryRow) []string {
	set := map[string]bool{"libtrtmc_core.so": true, "libtrtmc_runtime.so": true, "libtrtmc_backend_trt.so": true}
	for _, r := range rows {
		if r.Family != "" && r.GPUs <= 1 && r.Kind != evidence.KindExcluded && r.Kind != evidence.KindGap {
			set["libtrtmc_model_"+r.Family+".so"] = true
		}
	}
	var out []string
	for lib := range set {
		out = append(out, lib)
	}
	sort.Strings(out)
	return out
}

// targetRows are every stage's rows of the target's inventory.
func targetRows(t *target.Target) []evidence.InventoryRow {
	paths, err := t.ManifestPaths()
	if err != nil {
		return nil
	}
	var rows []evidence.InventoryRow
	for _, st := range inventory.Scan(paths, inventory.Options{Capabilities: inventory.ByTaskString}).Stages {
		rows = append(rows, st...)
	}
	return rows
}
