package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/trtmc-qual/trtmc-qual/harness/verify"
)

// verifyShards runs qual verify's checks on every shard with the pinned key before anything is
// merged: the merged run is signed afresh, so a shard it takes in unverified would carry the
// merger's signature. A shard that does not verify, or a merge without a key, is refused.
func verifyShards(ctx context.Context, dirs []string, keyFile string, withoutBundles bool) error {
	if keyFile == "" {
		return usageError{fmt.Errorf("--key is required: each shard is verified with the signer's pinned public key before it is merged (the shards' signer, e.g. the team key in QUAL_SIGNING_KEY)")}
	}
	pub, err := os.ReadFile(keyFile)
	if err != nil {
		return usageError{fmt.Errorf("pinned key: %w", err)}
	}
	opts, err := verifyOptions()
	if err != nil {
		return err
	}
	opts.WithoutBundles = withoutBundles
	for _, dir := range dirs {
		if err := verifyShard(ctx, dir, pub, opts); err != nil {
			return err
		}
	}
	return nil
}

// verifyShard is qual verify --key on one shard: the signature, every file, every recomputation.
func verifyShard(ctx context.Context, dir string, pub []byte, opts verify.Options) error {
	sig, err := checkSignature(ctx, dir, pub, opts.WithoutBundles, io.Discard)
	if err != nil {
		return fmt.Errorf("shard %s: %w", dir, err)
	}
	opts.SignedAbsent = sig.absent
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
