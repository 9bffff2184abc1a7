package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
)

// Limits of the strict-JSON pre-pass. The deepest body of the contract (chat: body, messages,
// message, content, part, input_audio) is 6 levels; no object of it has more than a dozen keys.
// Both limits are checked token by token, before anything proportional to the nesting or the
// key count is allocated, so that 30 MB of "[" costs the body buffer and nothing more.
const (
	maxJSONDepth      = 32
	maxJSONObjectKeys = 256
)

// decodeStrict decodes a JSON object body into v. encoding/json would silently keep the last
// of two equal keys, match keys case-insensitively and ignore unknown ones; the serving
// contract refuses all three by name. (encoding/json/v2 does this natively but still needs
// GOEXPERIMENT=jsonv2, and its standalone copy go-json-experiment promises no stable API, so a
// small pre-pass over v1's tokenizer stays here.)
func decodeStrict(body io.Reader, v any) error {
	data, err := readBody(body)
	if err != nil {
		return bodyError(err, contract.CodeInvalidJSON, "reading body: %v", err)
	}
	return decodeStrictBytes(data, v, accountOf(body))
}

// decodeStrictBytes is decodeStrict of a body already read. What the decode builds (a copy of
// every string, a header or field per value) is taken from acct first.
func decodeStrictBytes(data []byte, v any, acct *bodyAccount) error {
	values, err := checkDuplicateKeys(data)
	if err != nil {
		return err
	}
	if err := acct.take(len(data) + values*jsonValueBytes); err != nil {
		return bodyError(err, contract.CodeInvalidJSON, "%v", err)
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
		return badParam(contract.CodeInvalidValue, typeErr.Field, "field %q must be %s, not a JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, uerr := strconv.Unquote(field)
		if uerr != nil {
			name = field
		}
		return badParam(contract.CodeUnknownField, name, "unknown field %s", field)
	}
	return badRequest(contract.CodeInvalidJSON, "malformed JSON body: %v", err)
}

// jsonFrame is one open object or array while checking keys.
type jsonFrame struct {
	folded   map[string]bool // keys of an object, case-folded as encoding/json matches them
	variant  string          // first key spelled other than its canonical lowercase form
	isObject bool
	wantKey  bool
	elements int // of an array
}

// checkDuplicateKeys walks the token stream and refuses, at any depth: an object holding two
// keys that encoding/json would match to the same field (duplicate_field), a key that is a
// case variant of a contract name (unknown_field: every name of the contract is lowercase, so
// "Prompt" can only be a variant), nesting deeper than maxJSONDepth and objects with more than
// maxJSONObjectKeys keys; and (413 too_many_elements) arrays of more than maxJSONArrayElements
// elements and bodies of more than maxJSONValues values, so that neither this walk nor the
// typed decode does work or builds structure beyond those counts. Numbers stay text
// (UseNumber), so a 10^6-digit number is left to the typed decode, which names the field.
// It returns how many values the body holds.
func checkDuplicateKeys(data []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*jsonFrame
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].isObject {
			stack[len(stack)-1].wantKey = true
		}
	}
	values := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return values, nil
		}
		if err != nil {
			return values, badRequest(contract.CodeInvalidJSON, "malformed JSON body: %v", err)
		}
		if n := len(stack); n > 0 && stack[n-1].isObject && stack[n-1].wantKey {
			top := stack[n-1]
			if tok == json.Delim('}') {
				if top.variant != "" {
					return values, badParam(contract.CodeUnknownField, top.variant, "unknown field %q (field names are matched exactly, in lowercase)", top.variant)
				}
				stack = stack[:n-1]
				valueDone()
				continue
			}
			if err := top.addKey(fmt.Sprint(tok)); err != nil {
				return values, err
			}
			continue
		}
		if tok != json.Delim(']') {
			if values++; values > maxJSONValues {
				return values, errTooMany(maxJSONValues, "JSON values")
			}
			if n := len(stack); n > 0 && !stack[n-1].isObject {
				if stack[n-1].elements++; stack[n-1].elements > maxJSONArrayElements {
					return values, errTooMany(maxJSONArrayElements, "elements in a JSON array")
				}
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= maxJSONDepth {
				return values, badRequest(contract.CodeInvalidJSON, "JSON nested deeper than %d levels", maxJSONDepth)
			}
			if tok == json.Delim('{') {
				stack = append(stack, &jsonFrame{folded: map[string]bool{}, isObject: true, wantKey: true})
			} else {
				stack = append(stack, &jsonFrame{})
			}
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// addKey registers one key of an object.
func (f *jsonFrame) addKey(key string) error {
	folded := foldKey(key)
	if f.folded[folded] {
		return badRequest(contract.CodeDuplicateField, "field %q appears more than once (names differing only in case are the same field to a JSON decoder)", key)
	}
	if len(f.folded) >= maxJSONObjectKeys {
		return badRequest(contract.CodeInvalidJSON, "JSON object with more than %d keys", maxJSONObjectKeys)
	}
	f.folded[folded], f.wantKey = true, false
	if f.variant == "" && isCaseVariant(key) {
		f.variant = key
	}
	return nil
}

// foldKey maps a key to the representative of its case-fold class, the way encoding/json
// matches names (ASCII upper case, and the smallest rune of each Unicode simple-fold orbit,
// which puts "ſ" with "s" and the Kelvin sign with "k").
func foldKey(key string) string {
	var b strings.Builder
	b.Grow(len(key))
	for _, r := range key {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return unicode.ToUpper(r)
	}
	for {
		next := unicode.SimpleFold(r)
		if next <= r {
			return next
		}
		r = next
	}
}

// isCaseVariant says a key is not spelled in its canonical lowercase form: it holds an ASCII
// capital, or a non-ASCII rune that folds onto an ASCII letter.
func isCaseVariant(key string) bool {
	for _, r := range key {
		if 'A' <= r && r <= 'Z' || r >= utf8.RuneSelf && foldRune(r) < utf8.RuneSelf {
			return true
		}
	}
	return false
}
