package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// teamKey makes a signing key pair and returns the private key's path (PATH.pub is the public).
func teamKey(t *testing.T) string {
	t.Helper()
	key := filepath.Join(t.TempDir(), "team")
	if _, err := writeKeyPair(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// publishShard assembles and signs a shard run with key, as a shard's make qualify-all does.
func publishShard(t *testing.T, dir, key string) {
	t.Helper()
	if code, _, errOut := qualRun(t, "report", "--fail-on", "failed", dir); code != exitOK {
		t.Fatalf("report %s: exit %d %s", dir, code, errOut)
	}
	if code, _, errOut := qualRun(t, "sign", "--key-file", key, dir); code != exitOK {
		t.Fatalf("sign %s: exit %d %s", dir, code, errOut)
	}
}

// qual merge verifies every shard with the pinned key before merging: a shard signed by another
// key, an unsigned shard, or a shard whose evidence does not verify (though signed by the team
// key) is refused naming it, and nothing is written; without --key only this machine's local key
// pins a shard.
func TestMergeVerifiesEachShard(t *testing.T) {
	useTarget(t, "trtmc.yaml", "trtmc-newer")
	team, forger := teamKey(t), teamKey(t)
	shard := func(spec, key string) string {
		dir, _ := plannedStageRun(t, "asr", spec)
		if key != "" {
			publishShard(t, dir, key)
		}
		return dir
	}
	good := shard("1/2", team)
	cases := []struct {
		name  string
		other string
		want  string
	}{
		{"a shard signed by another key", shard("2/2", forger), "does not verify with the pinned key"},
		{"an unsigned shard", shard("2/2", ""), "does not verify"},
		{"a shard signed by the team key whose evidence does not verify", func() string {
			dir := shard("2/2", "")
			if code, _, errOut := qualRun(t, "report", "--fail-on", "failed", dir); code != exitOK {
				t.Fatalf("report: %d %s", code, errOut)
			}
			ev := filepath.Join(dir, "evidence.json")
			data, _ := os.ReadFile(ev)
			os.WriteFile(ev, bytes.Replace(data, []byte(`"planned"`), []byte(`"qualified"`), 1), 0o644)
			if code, _, errOut := qualRun(t, "sign", "--key-file", team, dir); code != exitOK {
				t.Fatalf("sign: %d %s", code, errOut)
			}
			return dir
		}(), "does not verify with the pinned key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			code, _, errOut := qualRun(t, "merge", "--key", team+".pub", "-o", out, good, c.other)
			if code != exitFailed || !strings.Contains(errOut, c.other) || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d %q, want 1 naming %s and %q", code, errOut, c.other, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused merge wrote %s", out)
			}
		})
	}
	if code, _, errOut := qualRun(t, "merge", "-o", filepath.Join(t.TempDir(), "m"), good); code != exitFailed || !strings.Contains(errOut, "signed by a key nothing pins") {
		t.Errorf("merge without --key of a shard another machine's key signed: exit %d %q", code, errOut)
	}
	if code, _, errOut := qualRun(t, "merge", "--key", team+".pub", "-o", filepath.Join(t.TempDir(), "m"), good, shard("2/2", team)); code != exitOK {
		t.Errorf("two shards signed by the pinned key: exit %d %s", code, errOut)
	}
}
