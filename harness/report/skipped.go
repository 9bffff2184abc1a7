package report

import (
	"fmt"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/report/doc"
)

// skippedBlocks lists, under the row table, every input a row did not send and why.
func skippedBlocks(s evidence.Stage) []doc.Block {
	l := doc.List{}
	for _, r := range s.Results {
		for _, sk := range r.Skipped {
			l.Items = append(l.Items, doc.Item{Text: doc.T(r.Profile + ": clip ").Code(sk.Clip).Plain(fmt.Sprintf(" (%.2f s, %d Hz): %s", sk.Seconds, sk.SampleRate, sk.Reason))})
		}
	}
	if len(l.Items) == 0 {
		return nil
	}
	return []doc.Block{doc.Paragraph{Text: doc.T(fmt.Sprintf("Inputs not sent (%d): beyond their family's declared limits, sent neither natively, nor over HTTP, nor by AIPerf:", len(l.Items)))}, l}
}
