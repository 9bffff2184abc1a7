package inventory

import (
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// AuditRow is one profile in a capability audit.
type AuditRow struct {
	Profile      string      `json:"profile"`
	Family       string      `json:"family"`
	TaskString   string      `json:"task_string"`
	Capabilities []task.Name `json:"capabilities"`
	Has          bool        `json:"has_capability"`
}

// Audit lists every profile's capabilities and whether it implements want: the evidence behind
// a stage reported blocked.
func Audit(paths []string, want task.Name, caps Capabilities) ([]AuditRow, error) {
	var out []AuditRow
	for _, p := range paths {
		m, err := manifest.Read(p)
		if err != nil {
			return nil, err
		}
		names, _, err := caps(m.Family, m.TaskString())
		if err != nil {
			return nil, err
		}
		row := AuditRow{Profile: m.Name, Family: m.Family, TaskString: m.TaskString(), Capabilities: names}
		for _, n := range names {
			row.Has = row.Has || n == want
		}
		out = append(out, row)
	}
	return out, nil
}
