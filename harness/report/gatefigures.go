package report

import "strings"

// gateFigureNames are the names a reader sees for the figures the families' gates report (the
// evidence and JUnit keep the gate's own key, gate_<key>). A key not listed here (a TRTMC gate's
// own figure) is shown by gateFigureName's rule.
var gateFigureNames = map[string]string{
	"audio_seconds":       "audio (s)",
	"clips":               "clips",
	"gold_wer":            "gold WER",
	"gold_wer_normalized": "gold WER, normalized",
	"gold_cer":            "gold CER",
	"ned_max":             "max NED to upstream",
	"wer_vs_upstream":     "WER to upstream",
	"prompts":             "prompts",
	"steps":               "steps",
	"guidance":            "guidance",
	"ssim_min":            "min SSIM",
	"ssim_mean":           "mean SSIM",
	"psnr_min_db":         "min PSNR (dB)",
	"identical":           "identical to golden",
	"pairs":               "QA pairs",
	"upstream_mismatches": "mismatches to upstream",
	"answer_accuracy":     "answer accuracy",
}

// gateFigureAccuracy starts the audio-QA gate's per-question-kind accuracies: accuracy_first_word
// reads "accuracy: first word".
const gateFigureAccuracy = "accuracy_"

// gateFigureName is the name a reader sees for a gate figure's key: its defined name, a
// per-kind accuracy's, else the key in words.
func gateFigureName(key string) string {
	if name, ok := gateFigureNames[key]; ok {
		return name
	}
	if kind, ok := strings.CutPrefix(key, gateFigureAccuracy); ok && kind != "" {
		return "accuracy: " + words(kind)
	}
	return words(key)
}

func words(key string) string { return strings.ReplaceAll(key, "_", " ") }
