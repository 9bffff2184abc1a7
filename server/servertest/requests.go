package servertest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
)

// Response is an HTTP answer with its JSON body decoded when it is JSON.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// ErrorCode is error.code of an error body ("" otherwise).
func (r Response) ErrorCode() string {
	e, _ := r.JSON["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// Do sends a request and reads the whole answer.
func Do(tb testing.TB, req *http.Request) Response {
	tb.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	out := Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	json.Unmarshal(body, &out.JSON)
	return out
}

// Field is one multipart field; File marks a file part.
type Field struct {
	Name, Value string
	File        []byte
}

// Multipart builds a multipart/form-data POST.
func Multipart(tb testing.TB, url string, fields ...Field) *http.Request {
	tb.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		if f.File != nil {
			w, err := mw.CreateFormFile(f.Name, "audio.wav")
			if err != nil {
				tb.Fatal(err)
			}
			w.Write(f.File)
		} else {
			mw.WriteField(f.Name, f.Value)
		}
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, url, &body)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// JSONPost builds a JSON POST from raw body text.
func JSONPost(tb testing.TB, url, body string) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}
