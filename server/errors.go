// Package server is trtmc-server: OpenAI-style HTTP serving of native Tasks with TRTMC's
// contract — request identity (X-Request-ID), per-request timing (trtmc_timing and
// Server-Timing), one JSONL record per request, bounded lanes and queues, Prometheus metrics.
package server

import (
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// StatusClientClosedRequest is nginx's 499: the client closed the connection before the answer.
// It is never seen by that client; it exists so that the request's record says what happened.
const StatusClientClosedRequest = 499

// maxEchoBytes caps how much of a client-supplied value an error message repeats.
const maxEchoBytes = 200

// apiError is an error with its HTTP status and stable code.
type apiError struct {
	Status  int
	Code    string
	Message string
	Param   string // the request field at fault, as OpenAI spells it ("" = none)
}

func (e *apiError) Error() string { return e.Message }

// newError formats a message; every string or error argument is cut to maxEchoBytes first, so
// that a 1 MB field name or a 10^6-digit number is never echoed whole into a response or log.
func newError(status int, code, format string, args ...any) *apiError {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = echo(v)
		case error:
			args[i] = echo(v.Error())
		}
	}
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// echo returns at most maxEchoBytes of s (cut on a rune boundary), saying how much was cut.
func echo(s string) string { return clip(s, maxEchoBytes) }

func clip(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:cut], len(s))
}

func badRequest(code, format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, code, format, args...)
}

// badParam is a 400 about one named request field: the error object's "param" names it.
func badParam(code, param, format string, args ...any) *apiError {
	e := badRequest(code, format, args...)
	e.Param = echo(param)
	return e
}

// unsupported refuses a parameter the server knows but cannot honour (400 unsupported_option).
func unsupported(param, format string, args ...any) *apiError {
	return badParam(contract.CodeUnsupportedOption, param, format, args...)
}

// asAPIError maps any handler error to its HTTP form: Task input errors keep their codes as
// 400s, a missing capability is 400 unsupported_capability, anything else is a 500.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var inv *task.InvalidInputError
	if errors.As(err, &inv) {
		// A Task's message may be longer than one echoed value (it lists what is supported);
		// it is still bounded, since it may quote the client's input.
		return &apiError{Status: http.StatusBadRequest, Code: inv.Code, Message: clip(inv.Message, 4*maxEchoBytes)}
	}
	var unsup *task.UnsupportedCapabilityError
	if errors.As(err, &unsup) {
		return badRequest(contract.CodeUnsupportedCapability, "%s", unsup.Error())
	}
	return newError(http.StatusInternalServerError, contract.CodeInternal, "internal error: %v", err)
}

// errorType is OpenAI's error "type" for a status.
func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == StatusClientClosedRequest:
		return "client_closed_request"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}
