package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/verify"
)

// verifyShards runs qual verify's checks on every shard with a pinned key before anything is
// merged: the merged run is signed afresh, so a shard it takes in unverified would carry the
// merger's signature. The key is --key, else, as qual verify pins it, this machine's local key
// when it signed the shard; a shard no key pins, or that does not verify, is refused.
func verifyShards(ctx context.Context, dirs []string, keyFile string, withoutBundles bool) error {
	opts, err := verifyOptions()
	if err != nil {
		return err
	}
	opts.WithoutBundles = withoutBundles
	for _, dir := range dirs {
		pub, err := pinnedKey(keyFile, dir, io.Discard)
		if err != nil {
			return usageError{err}
		}
		if pub == nil {
			return fmt.Errorf("shard %s is signed by a key nothing pins, not merged: pass the signer's public key (--key; CI: the team key whose private half is QUAL_SIGNING_KEY)", dir)
		}
		if err := verifyShard(ctx, dir, pub, opts); err != nil {
			return err
		}
	}
	return nil
}

// verifyShard is qual verify --key on one shard: the signature, every file, every recomputation.
func verifyShard(ctx context.Context, dir string, pub []byte, opts verify.Options) error {
	sig, err := checkSignature(ctx, dir, pub, opts.WithoutBundles, &verifyOutput{})
	if err != nil {
		return fmt.Errorf("shard %s: %w", dir, err)
	}
	rep, err := verify.Check(dir, opts)
	if err != nil {
		return fmt.Errorf("shard %s does not verify: %w", dir, err)
	}
	problems := sig.problems
	for _, p := range rep.Problems {
		problems = append(problems, p.String())
	}
	if len(problems) > 0 {
		return fmt.Errorf("shard %s does not verify with the pinned key (%d mismatches), not merged: %s", dir, len(problems), strings.Join(firstN(problems, 5), "; "))
	}
	return nil
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
