package whisper

import (
	_ "embed"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

//go:embed kernels.py
var kernelsScript []byte

// pinnedKernelEnv is the CTranslate2 kernel selection every whisper process runs with: the
// served worker, the gate's worker and upstream.py alike. Without it the kernels
// depend on the CPU: CTranslate2 uses Intel MKL on GenuineIntel only (oneDNN elsewhere), picks
// its own vectorized kernels by instruction set, and oneDNN dispatches by instruction set
// again; measured on one CPU, these choices alone turn "…ill-disposed." into "…old-sposed."
// and "Go forward" into "go forward" (int8). Pinned to values every x86-64 CPU CTranslate2
// runs on can execute, the transcripts — and so the committed upstream transcripts — are the same on
// any such CPU:
//
//   - CT2_USE_MKL=0: oneDNN, the backend CTranslate2 already uses on every non-Intel CPU;
//
//   - CT2_FORCE_CPU_ISA=GENERIC: CTranslate2's portable kernels, no AVX;
//
//   - ONEDNN_MAX_CPU_ISA=SSE41: oneDNN's lowest code-generation level.
//
//   - NPY_DISABLE_CPU_FEATURES: numpy (faster-whisper's log-mel features) at its baseline
//     (x86-64-v2) loops. numpy dispatches its float loops by instruction set at run time too, and
//     the features differ in their last bits between the AVX2 and the baseline loops: measured on
//     an AMD EPYC (AVX2, no AVX-512) with the three pins above, int8 "Go forward 10 meters."
//     became "go forward 10 meters." until numpy's x86-64-v3 loops were disabled. Naming a
//     feature the CPU lacks is allowed (numpy ignores it), so one list serves every CPU.
//
// The price is speed (about 2x slower than the CPU's best kernels, measured on an AVX-512 CPU).
func pinnedKernelEnv() map[string]string {
	return map[string]string{"CT2_USE_MKL": "0", "CT2_FORCE_CPU_ISA": "GENERIC", "ONEDNN_MAX_CPU_ISA": "SSE41",
		"NPY_DISABLE_CPU_FEATURES": "X86_V3,X86_V4,AVX512_ICL,AVX512_SPR"}
}

// processEnv is the environment of a whisper Python process: the caller's, then the fixed
// settings and the bundle's kernel pins (later entries win in os/exec, so an inherited
// CT2_FORCE_CPU_ISA cannot change the kernels), and CT2_VERBOSE=1 so that CTranslate2 logs
// the kernels it selected (kernels.py reads that log).
func processEnv(s Settings) []string {
	env := append(os.Environ(), "HF_HUB_OFFLINE=1", "OMP_NUM_THREADS=1", "CT2_VERBOSE=1")
	for _, k := range slices.Sorted(maps.Keys(s.KernelEnv)) {
		env = append(env, k+"="+s.KernelEnv[k])
	}
	return env
}

// checkKernels compares what CTranslate2 logged it selected with the bundle's pins: a process
// that ran other kernels than the pinned ones is refused, not served.
func checkKernels(got map[string]string, s Settings) error {
	want := map[string]string{"isa": s.KernelEnv["CT2_FORCE_CPU_ISA"]}
	if s.KernelEnv["CT2_USE_MKL"] == "0" {
		want["mkl"] = "false"
	}
	if s.KernelEnv["NPY_DISABLE_CPU_FEATURES"] != "" { // the pin disables every dispatch target
		want["numpy_dispatch"] = "none"
	}
	for k, v := range want {
		if got[k] != v {
			return fmt.Errorf("the process selected %s %q, the bundle pins %q (kernel settings %v; CTranslate2 and numpy reported %v)", k, got[k], v, s.KernelEnv, got)
		}
	}
	return nil
}

// kernelFacts are the pins and what CTranslate2 reported, for the gate's settings.
func kernelFacts(got map[string]string, s Settings) map[string]string {
	out := map[string]string{}
	for k, v := range s.KernelEnv {
		out["env."+k] = v
	}
	for k, v := range got {
		if rest, ok := strings.CutPrefix(k, "numpy_"); ok {
			out["numpy."+rest] = v
			continue
		}
		out["ctranslate2."+k] = v
	}
	return out
}
