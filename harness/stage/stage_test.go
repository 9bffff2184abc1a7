package stage

import "testing"

func TestRegistryIsConsistent(t *testing.T) {
	seenName, seenNumber, seenCap := map[Name]bool{}, map[int]bool{}, map[string]bool{}
	last := 0
	for _, s := range All() {
		if s.Name == "" || s.Number <= last || s.Title == "" || s.Capability == "" {
			t.Errorf("stage %+v: every stage needs a name, a title, a capability and a number above the previous one", s)
		}
		if seenName[s.Name] || seenNumber[s.Number] || seenCap[string(s.Capability)] {
			t.Errorf("stage %+v repeats a name, number or capability", s)
		}
		seenName[s.Name], seenNumber[s.Number], seenCap[string(s.Capability)] = true, true, true
		last = s.Number
		if got := s.Name.Number(); got != s.Number {
			t.Errorf("%s.Number() = %d, want %d", s.Name, got, s.Number)
		}
	}
	if _, err := Get("speech"); err == nil {
		t.Error("an unknown stage name is accepted")
	}
	if Name("speech").Number() != 0 || Name("speech").Capability() != "" {
		t.Error("an unknown stage has a number or capability")
	}
}
