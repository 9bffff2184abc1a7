package contract

import (
	"errors"
	"testing"
)

// A torn line (a failed write's fragment, NUL bytes a truncation left, another writer's text)
// is reported by line number and the records around it are all kept.
func TestParseRecordsReportsTornLinesAndKeepsTheRest(t *testing.T) {
	data := []byte(`{"request_id":"a","status":200}` + "\n" +
		`{"request_id":"b","sta` + "\n" +
		"\x00\x00\x00\x00\n" +
		`{"request_id":"c","status":404}` + "\n\n" +
		`{"request_id":"d","status":200}`)
	recs, err := ParseRecords(data)
	var torn *TornLines
	if !errors.As(err, &torn) || len(torn.Lines) != 2 || torn.Lines[0] != 2 || torn.Lines[1] != 3 {
		t.Fatalf("err %v, want torn lines 2 and 3", err)
	}
	if len(recs) != 3 || recs[0].RequestID != "a" || recs[1].RequestID != "c" || recs[2].RequestID != "d" {
		t.Fatalf("records %+v, want a, c, d", recs)
	}
	if _, err := ParseRecords(data[:32]); err != nil {
		t.Fatalf("whole lines: %v", err)
	}
}
