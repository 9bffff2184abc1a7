package sphinx

/*
#cgo pkg-config: pocketsphinx
#include <stdlib.h>
#include <pocketsphinx.h>

// cmd_ln_init is variadic, which cgo cannot call; cmd_ln_parse_r takes an argv array.
static cmd_ln_t *qual_parse_args(int argc, char **argv) {
	return cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// decoder is one PocketSphinx decoder instance. It is not safe for concurrent use: the model
// keeps a pool of them and hands each to one caller at a time.
type decoder struct {
	ps *C.ps_decoder_t
}

func newDecoder(args []string) (*decoder, error) {
	argv := make([]*C.char, len(args))
	for i, a := range args {
		argv[i] = C.CString(a)
	}
	defer func() {
		for _, p := range argv {
			C.free(unsafe.Pointer(p))
		}
	}()
	var argvPtr **C.char
	if len(argv) > 0 {
		argvPtr = &argv[0]
	}
	cfg := C.qual_parse_args(C.int(len(args)), argvPtr)
	if cfg == nil {
		return nil, fmt.Errorf("pocketsphinx rejected the decoder arguments %q", args)
	}
	ps := C.ps_init(cfg)
	C.cmd_ln_free_r(cfg) // ps_init keeps its own reference
	if ps == nil {
		return nil, fmt.Errorf("pocketsphinx decoder init failed (arguments %q)", args)
	}
	return &decoder{ps: ps}, nil
}

// decodeWhole runs one full-utterance decode: start a stream, start the utterance, process every
// sample with full_utt=1, end, read the hypothesis. ps_start_stream matters: without it the
// decoder carries live cepstral-mean and search state from the previous call into the next,
// and transcripts depend on call history (TestTranscriptsIndependentOfHistory caught this on
// the AN4 and fast profiles); pocketsphinx_batch starts a stream per file too.
func (d *decoder) decodeWhole(pcm []int16) (string, error) {
	if C.ps_start_stream(d.ps) < 0 {
		return "", fmt.Errorf("ps_start_stream failed")
	}
	if C.ps_start_utt(d.ps) < 0 {
		return "", fmt.Errorf("ps_start_utt failed")
	}
	var ptr *C.int16
	if len(pcm) > 0 {
		ptr = (*C.int16)(unsafe.Pointer(&pcm[0]))
	}
	if C.ps_process_raw(d.ps, ptr, C.size_t(len(pcm)), 0, 1) < 0 {
		C.ps_end_utt(d.ps)
		return "", fmt.Errorf("ps_process_raw failed")
	}
	if C.ps_end_utt(d.ps) < 0 {
		return "", fmt.Errorf("ps_end_utt failed")
	}
	var score C.int32
	hyp := C.ps_get_hyp(d.ps, &score)
	if hyp == nil {
		return "", nil // no hypothesis: silence or nothing recognizable
	}
	return C.GoString(hyp), nil
}

func (d *decoder) close() {
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
}
