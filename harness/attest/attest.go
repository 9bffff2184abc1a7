package attest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	ita1 "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/trtmc-qual/trtmc-qual/harness/runfile"
)

const (
	// EnvelopeFile is the signed DSSE envelope, written beside the run's files.
	EnvelopeFile = "attestation.dsse.json"
	// PublicKeyFile is the signer's public key, recorded beside the run so that a reader without
	// a pinned key can still check the signature (and is told it was not pinned).
	PublicKeyFile = "attestation.pub.pem"
	// PayloadType is the DSSE payload type of an in-toto Statement.
	PayloadType = "application/vnd.in-toto+json"
	// PredicateType names this project's predicate: what the run was.
	PredicateType = "https://github.com/trtmc-qual/trtmc-qual/attestation/qualification-run/v1"
)

// Problem is one way the published directory differs from what was signed.
type Problem struct {
	Where string // the file (relative to the run directory) or the envelope
	What  string
}

func (p Problem) String() string { return p.Where + ": " + p.What }

// Report is the outcome of checking a run's signature and manifest.
type Report struct {
	Fingerprint         string   // the key the signature was checked with
	Pinned              bool     // that key was given by the caller, not read from the run
	RecordedFingerprint string   // the key recorded beside the run (may differ from a pinned one)
	Files               int      // files in the signed manifest
	Absent              []string // signed files the caller allowed to be absent (a run published without its bundles)
	Problems            []Problem
}

// Sign writes the envelope and the public key beside the run's files and returns the key's
// fingerprint. Every regular file under runDir except those two is a subject.
func Sign(ctx context.Context, runDir string, privatePEM []byte) (string, error) {
	publicPEM, err := PublicFromPrivate(privatePEM)
	if err != nil {
		return "", err
	}
	fingerprint, err := Fingerprint(publicPEM)
	if err != nil {
		return "", fmt.Errorf("signing key: %w", err)
	}
	files, err := Manifest(runDir)
	if err != nil {
		return "", err
	}
	payload, err := statementJSON(runDir, files)
	if err != nil {
		return "", err
	}
	sv, err := signerVerifier(privatePEM, fingerprint)
	if err != nil {
		return "", err
	}
	signer, err := dsse.NewEnvelopeSigner(sv)
	if err != nil {
		return "", err
	}
	env, err := signer.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return "", fmt.Errorf("sign %s: %w", runDir, err)
	}
	data, err := json.MarshalIndent(env, "", " ")
	if err != nil {
		return "", fmt.Errorf("encode envelope: %w", err)
	}
	if err := os.WriteFile(filepath.Join(runDir, PublicKeyFile), publicPEM, 0o644); err != nil {
		return "", fmt.Errorf("record public key: %w", err)
	}
	if err := os.WriteFile(filepath.Join(runDir, EnvelopeFile), append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write envelope: %w", err)
	}
	return fingerprint, nil
}

// statementJSON is the in-toto Statement over files, validated by the in-toto library.
func statementJSON(runDir string, files []File) ([]byte, error) {
	pred, err := predicate(runDir)
	if err != nil {
		return nil, err
	}
	predStruct, err := structpb.NewStruct(pred)
	if err != nil {
		return nil, fmt.Errorf("predicate: %w", err)
	}
	st := &ita1.Statement{Type: ita1.StatementTypeUri, PredicateType: PredicateType, Predicate: predStruct}
	for _, f := range files {
		st.Subject = append(st.Subject, &ita1.ResourceDescriptor{Name: f.Path, Digest: map[string]string{"sha256": f.SHA256}})
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("in-toto statement for %s: %w", runDir, err)
	}
	return protojson.Marshal(st)
}

// predicate states what the run was, read from its evidence.json: a run without evidence is
// not a qualification and is not signed.
func predicate(runDir string) (map[string]any, error) {
	data, err := runfile.Read(filepath.Join(runDir, "evidence.json"), runfile.Evidence)
	if err != nil {
		return nil, fmt.Errorf("not a published run (sign after `qual report`): %w", err)
	}
	// Only the fields the predicate names are read, so that this leaf package does not depend
	// on the evidence package's types.
	var e struct {
		RunID      string          `json:"run_id"`
		Target     string          `json:"target"`
		TargetKind string          `json:"target_kind"`
		Versions   json.RawMessage `json:"versions"`
		Hardware   json.RawMessage `json:"hardware"`
		Stages     []struct {
			Stage   string `json:"stage"`
			Results []struct {
				Profile  string     `json:"profile"`
				Commands [][]string `json:"commands"`
			} `json:"results"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("evidence.json: %w", err)
	}
	type command struct {
		Stage   string   `json:"stage"`
		Profile string   `json:"profile"`
		Argv    []string `json:"argv"`
	}
	commands := []command{}
	for _, s := range e.Stages {
		for _, r := range s.Results {
			for _, c := range r.Commands {
				commands = append(commands, command{s.Stage, r.Profile, c})
			}
		}
	}
	pred := map[string]any{}
	raw, err := json.Marshal(map[string]any{"run_id": e.RunID, "target": e.Target, "target_kind": e.TargetKind,
		"versions": e.Versions, "hardware": e.Hardware, "commands": commands})
	if err == nil {
		err = json.Unmarshal(raw, &pred) // structpb takes only JSON-shaped values
	}
	if err != nil {
		return nil, fmt.Errorf("predicate: %w", err)
	}
	return pred, nil
}

// Verify checks the envelope's signature with pinnedPublicPEM, or with the key recorded beside
// the run when pinnedPublicPEM is nil, then every file against the signed manifest. A missing or
// bad signature is a problem, not an error, so callers can still run their other checks.
func Verify(ctx context.Context, runDir string, pinnedPublicPEM []byte) (Report, error) {
	return VerifyAllowingAbsent(ctx, runDir, pinnedPublicPEM, nil)
}

// VerifyAllowingAbsent is Verify where a signed file for which mayBeAbsent says true may be
// missing: it is listed in Report.Absent instead of being a problem (its signed sha256 still
// stands for it). Every other file is checked as Verify checks it.
func VerifyAllowingAbsent(ctx context.Context, runDir string, pinnedPublicPEM []byte, mayBeAbsent func(name string) bool) (Report, error) {
	var rep Report
	problem := func(where, format string, args ...any) {
		rep.Problems = append(rep.Problems, Problem{where, fmt.Sprintf(format, args...)})
	}
	recorded, recErr := runfile.Read(filepath.Join(runDir, PublicKeyFile), runfile.PublicKey)
	key := pinnedPublicPEM
	rep.Pinned = key != nil
	if recErr == nil {
		var err error
		if rep.RecordedFingerprint, err = Fingerprint(recorded); err != nil && rep.Pinned {
			// Unpinned, the same key fails below as the signature key.
			problem(PublicKeyFile, "the public key recorded beside the run is unreadable: %v", err)
		}
	}
	if !rep.Pinned {
		if recErr != nil {
			problem(PublicKeyFile, "run is not signed, or its public key is missing: none recorded beside the run and none given (--key): %v", recErr)
			return rep, nil
		}
		key = recorded
	}
	fp, err := Fingerprint(key)
	if err != nil {
		return rep, err
	}
	rep.Fingerprint = fp
	subjects, ok := verifiedSubjects(ctx, runDir, key, fp, problem)
	if !ok {
		return rep, nil
	}
	rep.Files = len(subjects)
	rep.Absent = compareFiles(runDir, subjects, mayBeAbsent, problem)
	return rep, nil
}

// verifiedSubjects checks the signature and returns the signed file hashes by path.
func verifiedSubjects(ctx context.Context, runDir string, publicPEM []byte, fp string, problem func(string, string, ...any)) (map[string]string, bool) {
	data, err := runfile.Read(filepath.Join(runDir, EnvelopeFile), runfile.Signature)
	if err != nil {
		problem(EnvelopeFile, "run is not signed (`qual sign` writes it): %v", err)
		return nil, false
	}
	var env dsse.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		problem(EnvelopeFile, "not a DSSE envelope: %v", err)
		return nil, false
	}
	if env.PayloadType != PayloadType {
		problem(EnvelopeFile, "payload type %q, want %q", env.PayloadType, PayloadType)
		return nil, false
	}
	sv, err := signerVerifier(publicPEM, fp)
	if err != nil {
		problem(EnvelopeFile, "%v", err)
		return nil, false
	}
	verifier, err := dsse.NewEnvelopeVerifier(sv)
	if err != nil {
		problem(EnvelopeFile, "%v", err)
		return nil, false
	}
	// DSSE accepts an envelope when any one signature verifies; a published run is signed once,
	// so every signature it carries must verify with the key (an extra one is an edit).
	if len(env.Signatures) == 0 {
		problem(EnvelopeFile, "signature does not verify with key %s: the envelope carries no signature", fp)
		return nil, false
	}
	var payload []byte
	for i, sig := range env.Signatures {
		one := env
		one.Signatures = []dsse.Signature{sig}
		if _, payload, err = verifier.VerifyAndDecode(ctx, &one); err != nil {
			problem(EnvelopeFile, "signature does not verify with key %s: signature %d of %d (keyid %q) fails, and every signature must verify: %v",
				fp, i+1, len(env.Signatures), sig.KeyID, err)
			return nil, false
		}
	}
	var st ita1.Statement
	if err := protojson.Unmarshal(payload, &st); err != nil {
		problem(EnvelopeFile, "signed payload is not an in-toto Statement: %v", err)
		return nil, false
	}
	if err := st.Validate(); err != nil || st.GetType() != ita1.StatementTypeUri || st.GetPredicateType() != PredicateType {
		problem(EnvelopeFile, "signed Statement %s with predicate %s is not a %s run statement (%v)", st.GetType(), st.GetPredicateType(), ita1.StatementTypeUri, err)
		return nil, false
	}
	subjects := map[string]string{}
	for _, s := range st.GetSubject() {
		if _, dup := subjects[s.GetName()]; dup {
			problem(s.GetName(), "listed twice in the signed manifest")
		}
		subjects[s.GetName()] = s.GetDigest()["sha256"]
	}
	return subjects, true
}

// compareFiles names every file added, removed or changed since signing, and returns the
// signed files that are missing where mayBeAbsent allows it.
func compareFiles(runDir string, subjects map[string]string, mayBeAbsent func(string) bool, problem func(string, string, ...any)) (absent []string) {
	onDisk, err := Manifest(runDir)
	if err != nil {
		problem(".", "%v", err)
		return nil
	}
	seen := map[string]bool{}
	for _, f := range onDisk {
		seen[f.Path] = true
		want, ok := subjects[f.Path]
		switch {
		case !ok:
			problem(f.Path, "added after signing (not in the signed manifest)")
		case want != f.SHA256:
			problem(f.Path, "changed after signing (sha256 %s, signed %s)", f.SHA256, want)
		}
	}
	for _, name := range sortedKeys(subjects) {
		switch {
		case seen[name]:
		case mayBeAbsent != nil && mayBeAbsent(name):
			absent = append(absent, name)
		default:
			problem(name, "removed after signing (signed sha256 %s)", subjects[name])
		}
	}
	for _, dir := range unsignedDirs(runDir, subjects) {
		problem(dir+"/", "directory added after signing (no signed file is in it)")
	}
	return absent
}

// unsignedDirs are the directories under runDir that hold no signed file: the manifest signs
// files, and the directories they imply are the only ones a signed run has.
func unsignedDirs(runDir string, subjects map[string]string) []string {
	implied := map[string]bool{}
	for name := range subjects {
		for d := path.Dir(name); d != "." && !implied[d]; d = path.Dir(d) {
			implied[d] = true
		}
	}
	var out []string
	root := resolved(runDir)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == root {
			return nil
		}
		rel, relErr := filepath.Rel(root, p)
		if relErr == nil && !implied[filepath.ToSlash(rel)] {
			out = append(out, filepath.ToSlash(rel))
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
