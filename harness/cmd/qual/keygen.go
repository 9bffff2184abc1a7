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

	"github.com/trtmc-qual/trtmc-qual/harness/attest"
)

// runKeygen makes a signing pair the way ssh-keygen -f does: PATH (private, 0600) and PATH.pub.
func runKeygen(_ context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	out := fs.String("o", "", "private key path; the public key goes to PATH.pub")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{fmt.Errorf("-o PATH is required: qual keygen -o PATH")}
	}
	fp, err := writeKeyPair(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "private key %s\npublic key  %s.pub\nfingerprint %s\n", *out, *out, fp)
	return nil
}

// writeKeyPair writes a new ed25519 pair and refuses to replace an existing key: losing a
// signing key silently would orphan every run it signed.
func writeKeyPair(path string) (string, error) {
	for _, p := range []string{path, path + ".pub"} {
		if _, err := os.Stat(p); err == nil {
			return "", usageError{fmt.Errorf("%s exists; not overwriting a key", p)}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	priv, pub, err := attest.GenerateKey()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("key directory: %w", err)
	}
	if err := os.WriteFile(path, priv, 0o600); err != nil {
		return "", fmt.Errorf("write private key: %w", err)
	}
	if err := os.WriteFile(path+".pub", pub, 0o644); err != nil {
		return "", fmt.Errorf("write public key: %w", err)
	}
	return attest.Fingerprint(pub)
}
