package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// QAPair is one fixed audio question-answer pair (golden/audioqa/pairs.jsonl): a clip of a
// pinned ASR dataset, a question about it, and the expected answer.
type QAPair struct {
	ID       string `json:"id"`
	Dataset  string `json:"dataset"` // repo-relative ASR dataset pin holding the clip
	Clip     string `json:"clip"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// ReadQAPairs reads the pinned audio QA pairs; every pair needs a unique id, a dataset, a clip
// and a question, and a bad line is an error naming it.
func ReadQAPairs(path string) ([]QAPair, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read QA pairs: %w", err)
	}
	var out []QAPair
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p QAPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if p.ID == "" || p.Dataset == "" || p.Clip == "" || p.Question == "" || seen[p.ID] {
			return nil, fmt.Errorf("%s:%d: every QA pair needs a unique id, a dataset, a clip and a question", path, line)
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	return out, sc.Err()
}
