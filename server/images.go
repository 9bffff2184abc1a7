package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/contract"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// imageRequest is the body of /v1/images/generations (the wire contract's), with the server's
// reading of it.
type imageRequest contract.ImagesRequest

// canonicalSize is the only spelling of a size: no sign, no leading zero, no spaces, five
// digits at most ("+128x0128" is refused, not read as 128x128).
var canonicalSize = regexp.MustCompile(`^([1-9][0-9]{0,4})x([1-9][0-9]{0,4})$`)

// parseSize reads "WxH".
func parseSize(s string) (int, int, error) {
	m := canonicalSize.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, badRequest(contract.CodeInvalidValue, "size %q is not WIDTHxHEIGHT (decimal, no sign or leading zero)", s)
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	return w, h, nil
}

// toTaskRequest fills what the client left out from the family's declared defaults. A seed left
// out is 0, so that an unseeded request is still reproducible.
func (req imageRequest) toTaskRequest(spec task.ImageSpec) (task.ImageRequest, error) {
	out := task.ImageRequest{NegativePrompt: req.NegativePrompt, Guidance: -1, Count: 1}
	if req.Prompt == nil || strings.TrimSpace(*req.Prompt) == "" {
		return out, badRequest(contract.CodeMissingField, "field \"prompt\" is required and must not be blank")
	}
	out.Prompt = *req.Prompt
	if req.Size != "" {
		var err error
		if out.Width, out.Height, err = parseSize(req.Size); err != nil {
			return out, err
		}
	}
	if req.N != nil {
		// Zero is not "the default": FillImageDefaults would turn it into one image.
		if *req.N <= 0 {
			return out, badRequest(contract.CodeInvalidValue, "n must be positive, got %d", *req.N)
		}
		out.Count = *req.N
	}
	if req.Seed != nil {
		out.Seed = *req.Seed
	}
	if req.Steps != nil {
		if *req.Steps <= 0 {
			return out, badRequest(contract.CodeInvalidValue, "num_inference_steps must be positive, got %d", *req.Steps)
		}
		out.Steps = *req.Steps
	}
	if req.Guidance != nil {
		if *req.Guidance < 0 {
			return out, badRequest(contract.CodeInvalidValue, "guidance_scale must not be negative, got %v", *req.Guidance)
		}
		out.Guidance = *req.Guidance
	}
	return task.FillImageDefaults(spec, out), nil
}

// imageParamsRefused are OpenAI image parameters this server knows and cannot honour.
var imageParamsRefused = map[string]bool{"background": true, "moderation": true, "output_compression": true,
	"output_format": true, "partial_images": true}

// checkOptions accepts user (any), quality and style at OpenAI's defaults, which change
// nothing here; other values are refused naming the parameter.
func (req imageRequest) checkOptions() error {
	if req.Stream {
		return unsupported("stream", "stream cannot be honored: images are returned whole")
	}
	if req.Quality != "" && req.Quality != "auto" && req.Quality != "standard" {
		return unsupported("quality", "quality %q cannot be honored: the model has one quality (auto, standard)", req.Quality)
	}
	if req.Style != "" && req.Style != "vivid" {
		return unsupported("style", "style %q cannot be honored: the model has one style (vivid, the default)", req.Style)
	}
	return nil
}

func (s *Server) generateImages(x *exchange) (*reply, error) {
	var req imageRequest
	if err := decodeStrict(x.r.Body, &req); err != nil {
		return nil, refuseKnown(err, imageParamsRefused)
	}
	if err := req.checkOptions(); err != nil {
		return nil, err
	}
	m, err := s.lookupModel(x, req.Model)
	if err != nil {
		return nil, err
	}
	format := req.ResponseFormat
	if format == "" {
		format = "b64_json"
	}
	if format != "b64_json" && format != "url" {
		return nil, badParam(contract.CodeInvalidValue, "response_format", "response_format %q is not one of b64_json, url", format)
	}
	gen, err := capability[task.ImageGenerator](m, task.TextToImage)
	if err != nil {
		return nil, err
	}
	treq, err := req.toTaskRequest(gen.ImageSpec())
	if err != nil {
		return nil, err
	}
	x.rec.InputSHA256 = task.ImageRequestSHA256(treq)
	var imgs []*image.NRGBA
	err = s.callTask(x, m, string(task.TextToImage), func(ctx context.Context) error {
		var terr error
		imgs, terr = gen.GenerateImage(ctx, treq)
		return terr
	})
	if err != nil {
		return nil, err
	}
	guidance, seed := treq.Guidance, treq.Seed
	out := &contract.RecordOutput{Steps: treq.Steps, Guidance: &guidance, Seed: &seed, Precision: gen.ImageSpec().Precision, Count: len(imgs)}
	data := make([]contract.ImageData, 0, len(imgs))
	var stored []string // url artifacts of this answer: given back if it fails part-way
	for _, img := range imgs {
		var buf bytes.Buffer
		// BestSpeed: PNG is lossless at every level, so the pixels (and their hash) are the
		// same; the default level costs ~4x the encode time on a 512x512 image.
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
			s.artifacts.discard(stored)
			return nil, fmt.Errorf("encode png: %w", err)
		}
		out.Images = append(out.Images, contract.RecordImage{SHA256: task.ImageSHA256(img), Width: img.Bounds().Dx(), Height: img.Bounds().Dy()})
		item, name, err := s.imageItem(x, format, buf.Bytes())
		if err != nil {
			s.artifacts.discard(stored)
			return nil, err
		}
		if name != "" {
			stored = append(stored, name)
		}
		data = append(data, item)
	}
	x.rec.Output = out
	return &reply{status: http.StatusOK, json: &contract.ImagesResponse{Created: time.Now().Unix(), Data: data,
		Size: fmt.Sprintf("%dx%d", treq.Width, treq.Height), Model: m.name}, artifacts: stored}, nil
}

// imageItem is one image of the answer, inline or as a url; name is the artifact it stored.
func (s *Server) imageItem(x *exchange, format string, pngBytes []byte) (item contract.ImageData, name string, err error) {
	if format == "b64_json" {
		return contract.ImageData{B64JSON: base64.StdEncoding.EncodeToString(pngBytes)}, "", nil
	}
	name, expires, err := s.artifacts.put(pngBytes)
	if err != nil {
		return contract.ImageData{}, "", err
	}
	return contract.ImageData{URL: s.baseURL(x.r) + s.artifacts.signedPath(name, expires), ExpiresAt: expires.Unix()}, name, nil
}

func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	// HTTP/1.0 may send no Host, and HTTP/1.1 an empty one: the url names the address the
	// request came in on rather than no host at all (a link nobody could follow).
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && r.Host == "" {
		return "http://" + addr.String()
	}
	return "http://" + r.Host
}
