// Package reader is the templated reader of the sphinxqa cascade: a closed, declared set of
// question forms, each answered deterministically from a transcript. It is not a language
// model and never guesses: a question outside the set is refused with a stable code. It is
// pure Go (no cgo), so the harness can type-check answers and recompute them offline.
package reader

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Version names the reader's behaviour; it is stored in every sphinxqa bundle header.
const Version = "templated-reader-v1"

// Refusal codes: a question the reader cannot answer is a 400 with one of these, never an
// answer. A refusal "answer" (200 with text saying so) was rejected because a client counting
// answers would count it; a coded error cannot be mistaken for one.
const (
	CodeUnsupportedQuestion = "unsupported_question"
	CodeEmptyQuestion       = "empty_question"
)

// Kind is one declared question form.
type Kind string

// The declared question forms.
const (
	WordCount  Kind = "word_count"
	DigitCount Kind = "digit_count"
	FirstWord  Kind = "first_word"
	LastWord   Kind = "last_word"
	WordSpoken Kind = "word_spoken"
	Digits     Kind = "digits"
	DigitSum   Kind = "digit_sum"
)

// Answer types, for checking that an answer is of its question's kind.
const (
	TypeInteger   = "integer"    // decimal, no sign: "4"
	TypeWord      = "word"       // one lowercase word, or "none" for an empty transcript
	TypeYesNo     = "yes_no"     // "yes" or "no"
	TypeDigitList = "digit_list" // numerals in spoken order separated by one space, or "none"
)

// Form is a declared question form: its canonical wording, what it matches, and its answer type.
type Form struct {
	Kind     Kind   `json:"kind"`
	Template string `json:"template"` // canonical wording; {word} is a placeholder
	Answer   string `json:"answer_type"`
	pattern  *regexp.Regexp
}

// Forms is the closed set the reader answers. A question matches a form after lowercasing,
// collapsing whitespace and dropping one trailing question mark; nothing else is accepted.
func Forms() []Form {
	return []Form{
		{WordCount, "How many words are spoken?", TypeInteger, regexp.MustCompile(`^how many words are spoken$`)},
		{DigitCount, "How many digits are spoken?", TypeInteger, regexp.MustCompile(`^how many digits are spoken$`)},
		{FirstWord, "What is the first word?", TypeWord, regexp.MustCompile(`^what is the first word$`)},
		{LastWord, "What is the last word?", TypeWord, regexp.MustCompile(`^what is the last word$`)},
		{WordSpoken, "Is the word {word} spoken?", TypeYesNo, regexp.MustCompile(`^is the word "?([a-z']+)"? spoken$`)},
		{Digits, "Which digits are spoken?", TypeDigitList, regexp.MustCompile(`^which digits are spoken$`)},
		{DigitSum, "What is the sum of the digits spoken?", TypeInteger, regexp.MustCompile(`^what is the sum of the digits spoken$`)},
	}
}

// Question is a parsed question.
type Question struct {
	Kind Kind
	Word string // WordSpoken only
}

// Text is the question's canonical wording.
func (q Question) Text() string {
	for _, f := range Forms() {
		if f.Kind == q.Kind {
			return strings.ReplaceAll(f.Template, "{word}", q.Word)
		}
	}
	return ""
}

// Parse matches a question against the declared forms. Anything else is an
// InvalidInputError with CodeUnsupportedQuestion (or CodeEmptyQuestion), naming the forms.
func Parse(text string) (Question, error) {
	norm := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	norm = strings.TrimSpace(strings.TrimSuffix(norm, "?"))
	if norm == "" {
		return Question{}, task.Invalid(CodeEmptyQuestion, "the question is empty; %s", declared())
	}
	for _, f := range Forms() {
		if m := f.pattern.FindStringSubmatch(norm); m != nil {
			q := Question{Kind: f.Kind}
			if len(m) > 1 {
				q.Word = m[1]
			}
			return q, nil
		}
	}
	return Question{}, task.Invalid(CodeUnsupportedQuestion, "question %q is not one of the declared forms; %s", truncate(text, 200), declared())
}

func declared() string {
	var ts []string
	for _, f := range Forms() {
		ts = append(ts, strconv.Quote(f.Template))
	}
	return "this cascade reference (PocketSphinx + templated reader) answers only: " + strings.Join(ts, ", ")
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// digitValue maps spoken digit words to their values; "oh" is zero, as in TIDIGITS. Number
// words beyond nine ("ten", "twenty") are words, not digits.
func digitValue(w string) (int, bool) {
	v, ok := map[string]int{"zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4,
		"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}[w]
	return v, ok
}

// Words splits a transcript into lowercase words, trimming punctuation at word edges (so that
// a gold text with punctuation and a recognizer's bare words read the same).
func Words(transcript string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(transcript)) {
		if w := strings.TrimFunc(f, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'') }); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Answer applies a parsed question to a transcript.
func Answer(q Question, transcript string) string {
	words := Words(transcript)
	var digits []int
	for _, w := range words {
		if v, ok := digitValue(w); ok {
			digits = append(digits, v)
		}
	}
	switch q.Kind {
	case WordCount:
		return strconv.Itoa(len(words))
	case DigitCount:
		return strconv.Itoa(len(digits))
	case FirstWord, LastWord:
		if len(words) == 0 {
			return "none"
		}
		if q.Kind == FirstWord {
			return words[0]
		}
		return words[len(words)-1]
	case WordSpoken:
		for _, w := range words {
			if w == q.Word {
				return "yes"
			}
		}
		return "no"
	case Digits:
		if len(digits) == 0 {
			return "none"
		}
		s := make([]string, len(digits))
		for i, d := range digits {
			s[i] = strconv.Itoa(d)
		}
		return strings.Join(s, " ")
	case DigitSum:
		sum := 0
		for _, d := range digits {
			sum += d
		}
		return strconv.Itoa(sum)
	}
	return ""
}

// AnswerText parses a question and answers it over a transcript.
func AnswerText(question, transcript string) (string, error) {
	q, err := Parse(question)
	if err != nil {
		return "", err
	}
	return Answer(q, transcript), nil
}

// answerShape is the form an answer of type typ must have.
func answerShape(typ string) *regexp.Regexp {
	switch typ {
	case TypeInteger:
		return regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	case TypeWord:
		return regexp.MustCompile(`^[a-z0-9']+$`)
	case TypeYesNo:
		return regexp.MustCompile(`^(yes|no)$`)
	}
	return regexp.MustCompile(`^(none|[0-9]( [0-9])*)$`) // TypeDigitList
}

// CheckType says whether answer is of the type its question asks for (the suite's "meaning"
// check: non-empty and of the question's kind).
func CheckType(question, answer string) error {
	q, err := Parse(question)
	if err != nil {
		return err
	}
	for _, f := range Forms() {
		if f.Kind == q.Kind {
			if !answerShape(f.Answer).MatchString(answer) {
				return fmt.Errorf("answer %q to %q is not of type %s", answer, question, f.Answer)
			}
			return nil
		}
	}
	return fmt.Errorf("no form for kind %s", q.Kind)
}
