// Package shard decides which shard of a qualification this process runs. The user names it
// (QUAL_SHARD, from `make qualify-all SHARD=i/n`), or the engine that started the process does:
// a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, 0-based, with the Job's completions passed as
// QUAL_SHARD_TOTAL) or a GitLab `parallel` job (CI_NODE_INDEX/CI_NODE_TOTAL, 1-based). An
// explicit QUAL_SHARD wins, but it must agree with whatever index the engine gives: a pod that
// runs a shard other than its own would leave one shard unrun and another run twice.
//
// A leaf package: standard library only, so it builds with CGO_ENABLED=0.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment variables read by FromEnv.
const (
	EnvShard       = "QUAL_SHARD"           // "i/n", 1-based (make SHARD=i/n)
	EnvTotal       = "QUAL_SHARD_TOTAL"     // shard count for engines that give only an index
	EnvK8sIndex    = "JOB_COMPLETION_INDEX" // Kubernetes Indexed Job, 0-based
	EnvGitLabIndex = "CI_NODE_INDEX"        // GitLab parallel, 1-based
	EnvGitLabTotal = "CI_NODE_TOTAL"        // GitLab parallel; 1 on jobs without `parallel`
)

// Shard is shard Index of Total, 1-based. The zero value is invalid.
type Shard struct {
	Index, Total int
}

// Whole is the run with every checkpoint (no sharding): shard 1/1.
func Whole() Shard { return Shard{Index: 1, Total: 1} }

// String is the "i/n" form that Parse reads and `make qualify-all SHARD=` takes.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }

// Parse reads "i/n" with 1 <= i <= n; "" is Whole().
func Parse(spec string) (Shard, error) {
	if spec == "" {
		return Whole(), nil
	}
	is, ns, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("%s=%q is not i/n with 1 <= i <= n", EnvShard, spec)
	}
	return Shard{Index: i, Total: n}, nil
}

// engineIndex is what one engine's variables say. Total is 0 when the engine gave an index
// but no total (acceptable only when QUAL_SHARD supplies it).
type engineIndex struct {
	vars  string // the variables and their values, for error messages
	shard Shard
}

// FromEnv resolves the shard from the environment (pass os.Getenv; tests inject a map).
func FromEnv(getenv func(string) string) (Shard, error) {
	explicit, err := Parse(strings.TrimSpace(getenv(EnvShard)))
	if err != nil {
		return Shard{}, err
	}
	hasExplicit := strings.TrimSpace(getenv(EnvShard)) != ""
	engines, err := engineIndexes(getenv)
	if err != nil {
		return Shard{}, err
	}
	if hasExplicit {
		return explicit, agree(explicit, EnvShard+"="+explicit.String(), engines)
	}
	if len(engines) == 0 {
		if total := getenv(EnvTotal); total != "" {
			return Shard{}, fmt.Errorf("%s=%s is set but no index is: set %s (Kubernetes Indexed Job) or %s=i/n",
				EnvTotal, total, EnvK8sIndex, EnvShard)
		}
		return Whole(), nil
	}
	first := engines[0]
	if first.shard.Total == 0 {
		return Shard{}, fmt.Errorf("%s is set but the shard count is not: set %s to the Job's completions, or %s=i/n",
			first.vars, EnvTotal, EnvShard)
	}
	return first.shard, agree(first.shard, first.vars, engines[1:])
}

// agree fails when any engine index differs from s (an index-only engine is compared on the
// index alone).
func agree(s Shard, from string, engines []engineIndex) error {
	for _, e := range engines {
		if e.shard.Index != s.Index || (e.shard.Total != 0 && e.shard.Total != s.Total) {
			return fmt.Errorf("%s (shard %s) disagrees with %s (shard %s): unset one, or make them agree",
				from, s, e.vars, describe(e.shard))
		}
	}
	return nil
}

func describe(s Shard) string {
	if s.Total == 0 {
		return fmt.Sprintf("%d/?", s.Index)
	}
	return s.String()
}

// engineIndexes reads every engine's variables that are set, in a fixed order.
func engineIndexes(getenv func(string) string) ([]engineIndex, error) {
	var out []engineIndex
	if k, ok, err := kubernetes(getenv); err != nil {
		return nil, err
	} else if ok {
		out = append(out, k)
	}
	if g, ok, err := gitlab(getenv); err != nil {
		return nil, err
	} else if ok {
		out = append(out, g)
	}
	return out, nil
}

// kubernetes reads JOB_COMPLETION_INDEX (0-based) and QUAL_SHARD_TOTAL (the Job's completions).
func kubernetes(getenv func(string) string) (engineIndex, bool, error) {
	idxS, totS := strings.TrimSpace(getenv(EnvK8sIndex)), strings.TrimSpace(getenv(EnvTotal))
	if idxS == "" {
		return engineIndex{}, false, nil
	}
	vars := EnvK8sIndex + "=" + idxS
	idx, err := strconv.Atoi(idxS)
	if err != nil || idx < 0 {
		return engineIndex{}, false, fmt.Errorf("%s is not a non-negative integer", vars)
	}
	e := engineIndex{vars: vars, shard: Shard{Index: idx + 1}}
	if totS == "" {
		return e, true, nil
	}
	e.vars += ", " + EnvTotal + "=" + totS
	tot, err := strconv.Atoi(totS)
	if err != nil || tot < 1 {
		return engineIndex{}, false, fmt.Errorf("%s=%q is not a positive integer", EnvTotal, totS)
	}
	if idx >= tot {
		return engineIndex{}, false, fmt.Errorf("%s is out of range: a Job with %d completions has indexes 0..%d", e.vars, tot, tot-1)
	}
	e.shard.Total = tot
	return e, true, nil
}

// gitlab reads CI_NODE_INDEX/CI_NODE_TOTAL (1-based). GitLab sets CI_NODE_TOTAL=1 on every job
// without `parallel`, so that alone means no sharding.
func gitlab(getenv func(string) string) (engineIndex, bool, error) {
	idxS, totS := strings.TrimSpace(getenv(EnvGitLabIndex)), strings.TrimSpace(getenv(EnvGitLabTotal))
	if idxS == "" {
		if totS != "" && totS != "1" {
			return engineIndex{}, false, fmt.Errorf("%s=%s is set but %s is not", EnvGitLabTotal, totS, EnvGitLabIndex)
		}
		return engineIndex{}, false, nil
	}
	vars := EnvGitLabIndex + "=" + idxS + ", " + EnvGitLabTotal + "=" + totS
	if totS == "" {
		return engineIndex{}, false, fmt.Errorf("%s=%s is set but %s is not", EnvGitLabIndex, idxS, EnvGitLabTotal)
	}
	idx, err1 := strconv.Atoi(idxS)
	tot, err2 := strconv.Atoi(totS)
	if err1 != nil || err2 != nil || tot < 1 || idx < 1 || idx > tot {
		return engineIndex{}, false, fmt.Errorf("%s is not an index in 1..total", vars)
	}
	return engineIndex{vars: vars, shard: Shard{Index: idx, Total: tot}}, true, nil
}
