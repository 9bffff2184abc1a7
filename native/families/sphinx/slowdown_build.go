//go:build qual_slowdown

package sphinx

// A TEST BUILD ONLY (-tags qual_slowdown): sphinx-tidigits's Task takes 20% longer, every other
// profile is untouched. It exists to prove that `qual compare` turns exactly that checkpoint red
// against a normal build; a binary built this way must never qualify anything.
const slowProfile = "sphinx-tidigits"
