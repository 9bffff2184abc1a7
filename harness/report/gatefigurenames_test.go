package report

import "testing"

// Each gate figure's name is defined once and names one key: no two keys (defined, per-kind
// accuracy, or a TRTMC gate's own) read the same.
func TestGateFigureNamesAreDistinct(t *testing.T) {
	keys := []string{"accuracy_first_word", "accuracy_digits", "accuracy_last_word", "accuracy_digit_sum", "wer_percent_max", "trtmc_score"}
	for k := range gateFigureNames {
		keys = append(keys, k)
	}
	seen := map[string]string{}
	for _, k := range keys {
		name := gateFigureName(k)
		if other, dup := seen[name]; dup && other != k {
			t.Errorf("%s and %s both read %q", other, k, name)
		}
		seen[name] = k
	}
}
