package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// decodeStrict decodes a JSON object body into v. encoding/json would silently keep the last
// of two equal keys and ignore unknown ones; the serving contract refuses both by name.
func decodeStrict(body io.Reader, v any) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return bodyError(err, contract.CodeInvalidJSON, "reading body: %v", err)
	}
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return badRequest(contract.CodeInvalidJSON, "body holds more than one JSON value")
	}
	return nil
}

// jsonError maps decoder errors to stable codes, naming the field where there is one.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return badRequest(contract.CodeInvalidValue, "field %q must be %s, not a JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return badRequest(contract.CodeUnknownField, "unknown field %s", field)
	}
	return badRequest(contract.CodeInvalidJSON, "malformed JSON body: %v", err)
}

// jsonFrame is one open object or array while checking keys.
type jsonFrame struct {
	keys     map[string]bool
	isObject bool
	wantKey  bool
}

// checkDuplicateKeys walks the token stream and refuses an object with a repeated key, at any
// depth.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*jsonFrame
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].isObject {
			stack[len(stack)-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return badRequest(contract.CodeInvalidJSON, "malformed JSON body: %v", err)
		}
		if n := len(stack); n > 0 && stack[n-1].isObject && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			key := fmt.Sprint(tok)
			if stack[n-1].keys[key] {
				return badRequest(contract.CodeDuplicateField, "field %q appears more than once", key)
			}
			stack[n-1].keys[key], stack[n-1].wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &jsonFrame{keys: map[string]bool{}, isObject: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &jsonFrame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
