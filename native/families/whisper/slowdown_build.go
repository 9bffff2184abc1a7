//go:build qual_slowdown

package whisper

// A TEST BUILD ONLY (-tags qual_slowdown): whisper-tiny-en's Task takes 20% longer, every other
// profile is untouched (a ~1 s Task: 20% is well above this 2-core machine's run-to-run spread,
// where sphinx-tidigits's ~10 ms Task could not be resolved in make qualify's runs). It exists to prove that `qual compare` turns exactly that checkpoint red
// against a normal build; a binary built this way must never qualify anything.
const slowProfile = "whisper-tiny-en"
