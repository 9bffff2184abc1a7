package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Prompt is one pinned text-to-image input.
type Prompt struct {
	ID             string `json:"id"`
	Prompt         string `json:"prompt"`
	NegativePrompt string `json:"negative_prompt,omitempty"`
	Seed           int64  `json:"seed"`
}

// ReadPrompts reads a JSONL prompt pin file; ids must be unique.
func ReadPrompts(path string) ([]Prompt, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read prompts: %w", err)
	}
	defer f.Close()
	var out []Prompt
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var p Prompt
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if p.ID == "" || p.Prompt == "" || seen[p.ID] {
			return nil, fmt.Errorf("%s:%d: every prompt needs a unique id and a prompt", path, line)
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no prompts", path)
	}
	return out, nil
}
