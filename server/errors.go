// Package server is trtmc-server: OpenAI-style HTTP serving of native Tasks with TRTMC's
// contract — request identity (X-Request-ID), per-request timing (trtmc_timing and
// Server-Timing), one JSONL record per request, bounded lanes and queues, Prometheus metrics.
package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// apiError is an error with its HTTP status and stable code.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Message }

func newError(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(code, format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, code, format, args...)
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
		return badRequest(inv.Code, "%s", inv.Message)
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
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}
