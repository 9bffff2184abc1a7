package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
	"github.com/trtmc-qual/trtmc-qual/harness/plan"
	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
	"github.com/trtmc-qual/trtmc-qual/harness/verify"
)

// runVerify checks a published run: the signature (pinned with --key, or with this machine's
// local key when that key signed it) and every file hash, then every recomputation. Its first
// line is the result (VERIFIED, UNPINNED or REFUSED, with the run's verdict and scope), then the
// mismatches, then the caveats grouped and counted; -v adds every detail. Exit 0 when
// everything matches, 1 when a check failed (or --require-key found no pinned key), 2 on a
// usage error.
func runVerify(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var key string
	fs.StringVar(&key, "key", "", "the signer's public key (PEM) to pin; without it a run signed by this machine's local key is pinned to that key, any other is UNPINNED")
	fs.StringVar(&key, "key-file", "", "same as --key")
	requireKey := fs.Bool("require-key", false, "fail (exit 1) unless the signature was checked with a pinned key (CI)")
	rerun := &rerunFlag{}
	fs.Var(rerun, "rerun", "re-execute every reference row's gate (the native Task on the pinned inputs, from the stored bundle) and compare its outputs exactly; --rerun=ROW,… only those rows (stage/profile or a profile)")
	native := fs.String("native", "", "trtmc-native `binary` for --rerun (default: the one qual images builds into this checkout's build/bin)")
	withoutBundles := fs.Bool("without-bundles", false, "accept a run published without its .bundle files (the CI upload): their signed sha256 and headers are taken as recorded, and listed")
	verbose := fs.Bool("v", false, "also print every detail: the signature, the pins, each re-executed gate and each caveat")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	runDir := fs.Arg(0)
	if err := checkRunDir(runDir, reportedRun); err != nil {
		return err
	}
	if err := runfile.CheckTree(runDir); err != nil {
		return err
	}
	out := &verifyOutput{}
	defer func() { out.print(stdout, *verbose) }()
	pinned, err := pinnedKey(key, runDir, &out.details)
	if err != nil {
		return err
	}
	sig, err := checkSignature(ctx, runDir, pinned, *withoutBundles, out)
	if err != nil {
		return err
	}
	opts, err := verifyOptions()
	if err != nil {
		return err
	}
	opts.WithoutBundles = *withoutBundles
	rep, err := verify.Check(runDir, opts)
	var schema *evidence.SchemaError
	if errors.As(err, &schema) {
		// Another schema is another qual's run, not a forgery: say so first, not as mismatches.
		out.result = fmt.Sprintf("NOT VERIFIED %s: written in another evidence schema", runDir)
		return usageError{err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(&out.details, rep.Pins)
	for _, n := range rep.Notes {
		out.caveat("the pins and the run's name", n)
	}
	mismatches := sig.problems
	for _, p := range rep.Problems {
		mismatches = append(mismatches, p.String())
	}
	var reran verify.Rerun
	if rerun.on {
		if reran, err = rerunGates(ctx, runDir, *native, rerun.rows, &out.details); err != nil {
			return err
		}
		for _, p := range reran.Problems {
			mismatches = append(mismatches, p.String())
		}
	}
	for _, r := range rep.Recorded {
		if r.ByRerun && rerun.on && reran.Covers(r.Row) {
			continue // re-executed
		}
		hint := ""
		if r.ByRerun {
			hint = " [--rerun re-executes it]"
		}
		out.caveat("not re-derived (taken as recorded)", fmt.Sprintf("%s: %s%s", r.Row, r.What, hint))
	}
	verdict := "unknown (evidence.json unreadable)"
	banner := ""
	if e, err := evidence.Read(runDir); err == nil {
		verdict, banner = evidence.Verdict(e), evidence.TestBuildBanner(e.Versions)
	}
	if len(mismatches) > 0 {
		out.result = fmt.Sprintf("REFUSED %s: %s; its recorded verdict %s is not established", runDir, mismatchCount(len(mismatches)), verdict)
		out.mismatches = mismatches
		// The mismatches may be the signature's, the pins' or the artifacts': the lines say which.
		return fmt.Errorf("refused: %s (the MISMATCH lines name each file)", mismatchCount(len(mismatches)))
	}
	if banner != "" {
		out.caveat("test build", fmt.Sprintf("NOT A QUALIFICATION: %s; the evidence is consistent, the binaries are a test build", banner))
	}
	what := "file hashes, statuses backed, requests 2xx and counted, joins, timing, outputs, gate figures against the pins, JUnit, bundle and input hashes, canonical JSON, and report all match"
	if sig.pinned {
		out.result = fmt.Sprintf("VERIFIED %s: verdict %s; signature with the pinned key %s", runDir, verdict, sig.fingerprint)
	} else {
		out.result = fmt.Sprintf("UNPINNED %s: verdict %s; integrity of the files only: signed by key %s, which nothing pins (pass --key)", runDir, verdict, sig.fingerprint)
	}
	fmt.Fprintf(&out.details, "checked: %s\n", what)
	if !sig.pinned && *requireKey {
		return errors.New("--require-key: the signature was not checked with a pinned key")
	}
	return nil
}

// verifyOutput is what verify prints, in the order a reader needs it: the result, the
// mismatches behind a refusal, the caveats by group with their counts, and (-v) the details.
type verifyOutput struct {
	result     string
	mismatches []string
	groups     []string            // caveat groups, in first-seen order
	caveats    map[string][]string // by group
	details    strings.Builder
}

func (o *verifyOutput) caveat(group, text string) {
	if o.caveats == nil {
		o.caveats = map[string][]string{}
	}
	if _, ok := o.caveats[group]; !ok {
		o.groups = append(o.groups, group)
	}
	o.caveats[group] = append(o.caveats[group], text)
}

// caveatGroupShown is how many of a group's caveats print without -v.
const caveatGroupShown = 2

func (o *verifyOutput) print(w io.Writer, verbose bool) {
	if o.result == "" {
		return // the run could not be checked: the error says why, on stderr
	}
	fmt.Fprintln(w, o.result)
	for _, m := range o.mismatches {
		fmt.Fprintf(w, "MISMATCH %s\n", m)
	}
	total := 0
	for _, g := range o.groups {
		total += len(o.caveats[g])
	}
	if total > 0 {
		more := " (-v lists every one)"
		if verbose {
			more = ""
		}
		fmt.Fprintf(w, "%s in %s%s:\n", evidence.CountOf(total, "caveat", "caveats"), evidence.CountOf(len(o.groups), "group", "groups"), more)
	}
	for _, g := range o.groups {
		items := o.caveats[g]
		fmt.Fprintf(w, "  %s (%d)\n", g, len(items))
		shown := items
		if !verbose && len(items) > caveatGroupShown {
			shown = items[:caveatGroupShown]
		}
		for _, c := range shown {
			fmt.Fprintf(w, "    %s\n", c)
		}
		if len(shown) < len(items) {
			fmt.Fprintf(w, "    … %d more\n", len(items)-len(shown))
		}
	}
	if verbose && o.details.Len() > 0 {
		fmt.Fprintf(w, "details:\n%s", o.details.String())
	}
}

// pinnedKey is the public key to check the signature with: --key, else this machine's local key
// when the run records it (a run signed here is pinned to the key that signed it, like ssh's
// known hosts), else nil (unpinned). A key that cannot be read or is no public key is a usage
// error (exit 2): no signature was checked, so no check failed.
func pinnedKey(keyFile, runDir string, stdout io.Writer) ([]byte, error) {
	if keyFile != "" {
		pub, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, usageError{fmt.Errorf("pinned key: %w", err)}
		}
		if _, err := attest.Fingerprint(pub); err != nil {
			return nil, usageError{fmt.Errorf("pinned key %s: %w (pin the signer's .pub file)", keyFile, err)}
		}
		return pub, nil
	}
	path, err := localKeyPath()
	if err != nil {
		return nil, nil
	}
	priv, err := os.ReadFile(path)
	if err != nil {
		return nil, nil // no local key: nothing to pin to
	}
	local, err := attest.PublicFromPrivate(priv)
	if err != nil {
		return nil, usageError{fmt.Errorf("local signing key %s: %w", path, err)}
	}
	recorded, err := os.ReadFile(filepath.Join(runDir, attest.PublicKeyFile))
	if err != nil || !sameKey(recorded, local) {
		return nil, nil
	}
	fmt.Fprintf(stdout, "pinned to this machine's local signing key %s, which signed the run (pass --key to pin another)\n", path)
	return local, nil
}

func sameKey(a, b []byte) bool {
	fa, errA := attest.Fingerprint(a)
	fb, errB := attest.Fingerprint(b)
	return errA == nil && errB == nil && fa == fb
}

// signature is the outcome of the signature check.
type signature struct {
	pinned      bool
	fingerprint string
	problems    []string
}

// checkSignature verifies the run's signature and file manifest, with the pinned key when given,
// and says which key signed it.
func checkSignature(ctx context.Context, runDir string, pinned []byte, withoutBundles bool, out *verifyOutput) (signature, error) {
	stdout := &out.details
	var mayBeAbsent func(string) bool
	if withoutBundles {
		mayBeAbsent = func(name string) bool { return strings.HasSuffix(name, ".bundle") }
	}
	rep, err := attest.VerifyAllowingAbsent(ctx, runDir, pinned, mayBeAbsent)
	if err != nil {
		return signature{}, err
	}
	if len(rep.Absent) > 0 {
		out.caveat("published without bundles", fmt.Sprintf("%d bundle(s): their signed sha256 stand for them, not re-hashed: %s", len(rep.Absent), strings.Join(rep.Absent, ", ")))
	}
	sig := signature{pinned: rep.Pinned, fingerprint: rep.Fingerprint}
	for _, p := range rep.Problems {
		sig.problems = append(sig.problems, p.String())
	}
	switch {
	case len(sig.problems) > 0:
	case rep.Pinned:
		fmt.Fprintf(stdout, "signed by key %s, pinned: %d files match the signed manifest\n", rep.Fingerprint, rep.Files)
	default:
		fmt.Fprintf(stdout, "signed by key %s, not pinned (checked with the key recorded beside the run; pass --key to pin): %d files match the signed manifest\n", rep.Fingerprint, rep.Files)
	}
	if rep.Pinned && rep.RecordedFingerprint != "" && rep.RecordedFingerprint != rep.Fingerprint {
		sig.problems = append(sig.problems, fmt.Sprintf("%s: recorded key %s is not the pinned key %s", attest.PublicKeyFile, rep.RecordedFingerprint, rep.Fingerprint))
	}
	return sig, nil
}

// rerunFlag is --rerun (every gated row) or --rerun=ROW,… (those rows): a boolean flag that
// also takes a value, so a bare --rerun keeps its meaning before the run directory.
type rerunFlag struct {
	on   bool
	rows []string // empty: every row
}

func (f *rerunFlag) IsBoolFlag() bool { return true }

func (f *rerunFlag) String() string {
	if f == nil || !f.on {
		return "false"
	}
	if len(f.rows) == 0 {
		return "true"
	}
	return strings.Join(f.rows, ",")
}

func (f *rerunFlag) Set(v string) error {
	switch v {
	case "true":
		f.on, f.rows = true, nil
		return nil
	case "false":
		f.on, f.rows = false, nil
		return nil
	}
	rows := strings.Split(v, ",")
	for _, r := range rows {
		if strings.TrimSpace(r) != r || r == "" {
			return fmt.Errorf("--rerun=%q: a row name is empty or padded (--rerun=asr/whisper-tiny-en,t2i/procdiff-small)", v)
		}
	}
	f.on, f.rows = true, rows
	return nil
}

// rerunGates runs verify.RerunGates with the reference binary on the rows named (every row when
// none) and prints each re-executed row.
func rerunGates(ctx context.Context, runDir, native string, rows []string, stdout io.Writer) (verify.Rerun, error) {
	opts, err := verifyOptions()
	if err != nil {
		return verify.Rerun{}, err
	}
	if native == "" {
		native = plan.NativeBin(opts.Root)
	}
	if _, err := os.Stat(native); err != nil {
		return verify.Rerun{}, usageError{fmt.Errorf("--rerun needs trtmc-native (`qual images` in this checkout builds it, or pass --native): %w", err)}
	}
	start := time.Now()
	res, err := verify.RerunGates(ctx, runDir, native, rows, opts)
	if errors.Is(err, verify.ErrUnknownRow) {
		return res, usageError{err}
	}
	if err != nil {
		return res, err
	}
	for _, row := range res.Rows {
		fmt.Fprintf(stdout, "rerun %s\n", row)
	}
	fmt.Fprintf(stdout, "rerun: %d reference rows re-executed in %.1f s\n", len(res.Rows), time.Since(start).Seconds())
	return res, nil
}

// verifyOptions are the configuration's answers to where the pins are (the repository root)
// and which TRTMC checkout a trtmc run used.
func verifyOptions() (verify.Options, error) {
	cfg, err := config.Load()
	if err != nil {
		return verify.Options{}, usageError{err}
	}
	return verify.Options{Root: cfg.Root, RootFrom: cfg.RootFrom, TRTMCRoot: cfg.TRTMCRoot,
		Cache: cfg.Cache, Python: cfg.WhisperPython}, nil
}

func mismatchCount(n int) string { return evidence.CountOf(n, "mismatch", "mismatches") }
