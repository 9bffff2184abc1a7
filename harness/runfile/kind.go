// Package runfile is the one way the harness reads a published run's files: only regular files,
// never through a link, never blocking on a FIFO, each under the size cap of its kind, and the
// images inside them decoded only after their declared size is checked. A run directory comes
// from anyone (a shard, a download, a forger), so its bytes are bounded before they are parsed.
package runfile

import (
	"path"
	"strings"
)

// Kind is a kind of run file, with its caps.
type Kind int

// The kinds of files a run holds.
const (
	Other Kind = iota
	Evidence
	Signature
	PublicKey
	Records
	JSON
	JUnit
	Markdown
	HTML
	SVG
	PNG
	WAV
	Text
	Bundle
	numKinds
	// LoadedBundle is a bundle read whole rather than hashed as a stream (a small reference
	// family's bundle whose sections verify reads); no file name selects it.
	LoadedBundle = numKinds
)

const (
	kib = int64(1) << 10
	mib = kib << 10
	gib = mib << 10
)

// limit is a kind's name in errors, the most bytes a file of the kind may hold, for a
// line-oriented kind the most lines, and for a JSON kind the most JSON values (0: not counted).
type limit struct {
	name      string
	maxBytes  int64
	maxLines  int
	maxValues int
}

// maxJSONValues bounds the values (objects, arrays, members, elements) of one JSON or JSONL
// file: decoded, a value costs up to ~140 bytes, so a file at the cap stays near 140 MiB
// whatever its byte size (64 MiB of one-member objects is 6.7 M values, 934 MiB decoded). A
// reduced run's largest JSON holds 7 000 values. Server records are read into typed records
// (about 12 values a line, the server's /metrics scrapes included: two a second), so their
// files may hold twice as many, and 100 000 lines (14 hours of scraping).
const maxJSONValues = 1_000_000

// limits holds the caps: a run's legitimate sizes with a wide margin (a reduced reference run's
// largest JSON is well under 1 MiB, a full one's a few MiB), small enough that parsing a file at
// its cap stays within verify's memory budget. Bundles are hashed as streams and only their
// header is parsed, so their cap is the disk's, not memory's.
func (k Kind) limit() limit {
	switch k {
	case Evidence:
		return limit{"evidence JSON", 32 * mib, 0, maxJSONValues}
	case Signature:
		return limit{"signature envelope", 16 * mib, 0, maxJSONValues}
	case PublicKey:
		return limit{"public key", 64 * kib, 0, 0}
	case Records:
		return limit{"JSONL records", 64 * mib, 100_000, 2 * maxJSONValues}
	case JSON:
		return limit{"JSON export", 64 * mib, 0, maxJSONValues}
	case JUnit:
		return limit{"JUnit XML", 32 * mib, 0, 0}
	case Markdown:
		return limit{"Markdown report", 16 * mib, 0, 0}
	case HTML:
		return limit{"HTML report", 64 * mib, 0, 0}
	case SVG:
		return limit{"SVG plot", 16 * mib, 0, 0}
	case PNG:
		return limit{"PNG image", 32 * mib, 0, 0}
	case WAV:
		return limit{"WAV clip", 32 * mib, 0, 0}
	case Text:
		return limit{"text log", 64 * mib, 0, 0}
	case Bundle:
		return limit{"bundle", 256 * gib, 0, 0}
	case LoadedBundle:
		return limit{"bundle read whole", 128 * mib, 0, 0}
	}
	return limit{"file", 64 * mib, 0, 0}
}

func (k Kind) String() string { return k.limit().name }

// MaxBytes is the most bytes a file of the kind may hold.
func (k Kind) MaxBytes() int64 { return k.limit().maxBytes }

// MaxLines is the most lines a file of the kind may hold (0: not counted).
func (k Kind) MaxLines() int { return k.limit().maxLines }

// MaxValues is the most JSON values a file of the kind may hold (0: not counted).
func (k Kind) MaxValues() int { return k.limit().maxValues }

// Kinds lists every kind a file name selects (KindOf), for tests that attack each.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds)
	for k := Other; k < numKinds; k++ {
		out = append(out, k)
	}
	return out
}

// KindOf is the kind of the run file at rel (relative to the run directory), from its name: the
// names the suites write, then the extension.
func KindOf(rel string) Kind {
	base := path.Base(strings.ReplaceAll(rel, "\\", "/"))
	switch base {
	case "evidence.json", "stage.json", "comparison.json":
		return Evidence
	case "attestation.dsse.json":
		return Signature
	case "attestation.pub.pem":
		return PublicKey
	}
	switch strings.ToLower(path.Ext(base)) {
	case ".jsonl":
		return Records
	case ".json":
		return JSON
	case ".xml":
		return JUnit
	case ".md":
		return Markdown
	case ".html":
		return HTML
	case ".svg":
		return SVG
	case ".png":
		return PNG
	case ".wav":
		return WAV
	case ".txt", ".log":
		return Text
	case ".bundle":
		return Bundle
	}
	return Other
}
