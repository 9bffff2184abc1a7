package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/audio"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// AnswerOutput is what `answer --json` prints.
type AnswerOutput struct {
	Answer       string  `json:"text"` // the answer, under the key every native run prints its text output
	Question     string  `json:"question"`
	PublicTaskMS float64 `json:"public_task_call_wall_ms"`
	AudioSeconds float64 `json:"audio_seconds"`
	BundleSHA256 string  `json:"bundle_sha256"`
	Profile      string  `json:"profile"`
	InputSHA256  string  `json:"input_sha256"` // task.AudioQuestionSHA256, as the server records it
}

// runAnswer runs one clip and one question through audio_text_to_text. A refused question or
// clip fails with the Task's stable code in the message (exit 1), as the server answers 400.
func runAnswer(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("answer", flag.ContinueOnError)
	host := family.HostFlags(fs)
	input := fs.String("input", "", "WAV clip (PCM16 or float32)")
	question := fs.String("question", "", "the question about the clip")
	asJSON := fs.Bool("json", false, "print JSON with public_task_call_wall_ms")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	clip, err := readClip(*input)
	if err != nil {
		return err
	}
	l, qa, err := loadTask[task.AudioAnswerer](pos[0], *host, task.AudioTextToText)
	if err != nil {
		return err
	}
	defer l.Model.Close()
	start := time.Now() // one call through the public Task, as in transcribe
	answer, err := qa.Answer(ctx, task.AudioQuestion{Audio: clip, Question: *question})
	wall := time.Since(start)
	if err != nil {
		if code := audio.CodeOf(err); code != "" {
			return fmt.Errorf("%s: %w", code, err)
		}
		return err
	}
	if !*asJSON {
		_, err := fmt.Fprintln(stdout, answer)
		return err
	}
	return printJSON(stdout, AnswerOutput{Answer: answer, Question: *question, PublicTaskMS: float64(wall.Microseconds()) / 1000,
		AudioSeconds: clip.Seconds(), BundleSHA256: l.Bundle.SHA256, Profile: l.Bundle.Header.Profile,
		InputSHA256: task.AudioQuestionSHA256(clip.SHA256(), strings.TrimSpace(*question))})
}
