package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
	"github.com/trtmc-qual/trtmc-qual/harness/config"
	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// localKeyName is the pair `qual sign` creates under the cache directory on first use when no
// key is given, as ssh-keygen does under ~/.ssh.
const localKeyName = "signing/qual-ed25519"

// runSign signs every file of a published run (see harness/attest).
func runSign(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	var keyFile string
	fs.StringVar(&keyFile, "key", "", "PKCS#8 PEM private key (ed25519 or ECDSA P-256); default $QUAL_SIGNING_KEY, then a local key under $QUAL_CACHE")
	fs.StringVar(&keyFile, "key-file", "", "same as --key")
	resign := fs.Bool("resign", false, "sign a signed run again, as it is now: one whose files changed after signing (named first) or to change its key")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if err := checkRunDir(fs.Arg(0), reportedRun); err != nil {
		return err
	}
	// Only a run this qual reads is signed: a signature over another schema's evidence would
	// vouch for figures no verify of this version can check.
	if _, err := evidence.Read(fs.Arg(0)); err != nil {
		return err
	}
	// The key is checked first: a bad key is named whatever state the run is in.
	key, source, err := givenKey(keyFile)
	if err != nil {
		return err
	}
	named := key != nil
	if !named {
		if key, source, err = localKey(stdout); err != nil {
			return err
		}
	}
	fp, err := keyFingerprint(key)
	if err != nil { // a key that cannot sign is the caller's to fix, like a missing one
		return usageError{fmt.Errorf("signing key (%s): %w", source, err)}
	}
	if done, err := alreadySigned(ctx, fs.Arg(0), *resign, named, fp, source, stdout); done || err != nil {
		return err
	}
	if fp, err = attest.Sign(ctx, fs.Arg(0), key); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "signed %s with key %s (%s); envelope %s, public key %s\n", fs.Arg(0), fp, source,
		attest.EnvelopeFile, attest.PublicKeyFile)
	return nil
}

// givenKey returns the private key PEM the caller named and where it came from: --key-file, else
// QUAL_SIGNING_KEY (the PEM itself, as CI passes a secret); nil when neither names one, and the
// local pair signs (localKey).
func givenKey(keyFile string) ([]byte, string, error) {
	if keyFile != "" {
		key, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, "", usageError{fmt.Errorf("signing key: %w", err)}
		}
		return key, "key file " + keyFile, nil
	}
	m, err := config.LoadMachine()
	if err != nil {
		return nil, "", err
	}
	if env := m.SigningKey; env != "" {
		if !strings.Contains(env, "-----BEGIN") {
			return nil, "", usageError{errors.New("QUAL_SIGNING_KEY must hold a PEM private key, not a path (use --key for a path)")}
		}
		return []byte(env), "QUAL_SIGNING_KEY", nil
	}
	return nil, "", nil
}

// localKey returns the local pair's private key PEM, created on first use, and where it is.
func localKey(stdout io.Writer) ([]byte, string, error) {
	path, err := localKeyPath()
	if err != nil {
		return nil, "", err
	}
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		fp, genErr := writeKeyPair(path)
		if genErr != nil {
			return nil, "", genErr
		}
		fmt.Fprintf(stdout, "created a local signing key %s (fingerprint %s); CI passes its own in QUAL_SIGNING_KEY\n", path, fp)
		key, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, "", usageError{fmt.Errorf("local signing key: %w", err)}
	}
	return key, "local key " + path, nil
}

func localKeyPath() (string, error) {
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, filepath.FromSlash(localKeyName)), nil
}

// cacheDir is the machine's cache (harness/config): keys, wheels, venvs.
func cacheDir() (string, error) {
	m, err := config.LoadMachine()
	return m.Cache, err
}

// shownChanges is how many of a signed run's changes the refusal names before counting the rest.
const shownChanges = 3

// alreadySigned decides what signing a signed run means. Its signature still verifies (with the
// key recorded beside it): nothing to sign, said so (done); --resign signs it again. A key the
// caller named (named: fingerprint fp, from source) that is not the one it was signed with is refused (exit 2)
// unless --resign: the caller asked for a signature by that key, and a "nothing to sign" would
// leave one a verify pinned to it refuses. It no longer verifies: the run changed after it was
// signed, and signing it again would vouch for files nobody checked, so it is refused (exit 2)
// naming the first changes, unless --resign, which names them and signs. A run with no
// signature is simply signed.
func alreadySigned(ctx context.Context, runDir string, resign, named bool, fp, source string, stdout io.Writer) (done bool, err error) {
	if !present(filepath.Join(runDir, attest.EnvelopeFile)) {
		return false, nil
	}
	rep, err := attest.Verify(ctx, runDir, nil)
	if err != nil {
		return false, err
	}
	if len(rep.Problems) == 0 && !resign && named && fp != rep.Fingerprint {
		return false, usageError{fmt.Errorf("%s is signed with key %s, not with the key given (%s, key %s): "+
			"sign it again with --resign to replace its signature by one of that key", runDir, rep.Fingerprint, source, fp)}
	}
	switch {
	case len(rep.Problems) == 0 && !resign:
		fmt.Fprintf(stdout, "%s is already signed (key %s) and its signature verifies: nothing to sign (qual sign --resign signs it again)\n", runDir, rep.Fingerprint)
		return true, nil
	case len(rep.Problems) == 0:
		fmt.Fprintf(stdout, "re-signing %s: its signature (key %s) verified; --resign signs it again\n", runDir, rep.Fingerprint)
		return false, nil
	case !resign:
		return false, usageError{fmt.Errorf("%s is signed, but its signature no longer verifies: %s; signing it again would vouch for what changed after it was signed: "+
			"copy the run again from where it was published, or sign it as it is now with `qual sign --resign %s`", runDir, changes(rep.Problems), runDir)}
	}
	fmt.Fprintf(stdout, "re-signing %s, changed after it was signed: %s\n", runDir, changes(rep.Problems))
	return false, nil
}

// keyFingerprint is the fingerprint of a private key's public half.
func keyFingerprint(privatePEM []byte) (string, error) {
	pub, err := attest.PublicFromPrivate(privatePEM)
	if err != nil {
		return "", err
	}
	return attest.Fingerprint(pub)
}

// changes names a signed run's first changes and counts the rest.
func changes(problems []attest.Problem) string {
	var parts []string
	for _, p := range problems[:min(len(problems), shownChanges)] {
		parts = append(parts, p.String())
	}
	s := strings.Join(parts, "; ")
	if n := len(problems) - shownChanges; n > 0 {
		s += fmt.Sprintf("; and %d more", n)
	}
	return s
}
