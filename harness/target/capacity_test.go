package target

import "testing"

func TestSweepValidate(t *testing.T) {
	good := Sweep{Objective: Objective{ClientP95MS: 1}, Concurrency: []int{1, 2}, Requests: 1, Runs: 1}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Sweep){
		"no levels":    func(s *Sweep) { s.Concurrency = nil },
		"descending":   func(s *Sweep) { s.Concurrency = []int{2, 1} },
		"zero level":   func(s *Sweep) { s.Concurrency = []int{0, 1} },
		"no objective": func(s *Sweep) { s.Objective.ClientP95MS = 0 },
		"no requests":  func(s *Sweep) { s.Requests = 0 },
		"no runs":      func(s *Sweep) { s.Runs = 0 },
	} {
		s := good
		s.Concurrency = append([]int(nil), good.Concurrency...)
		mutate(&s)
		if s.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
