package shard

import (
	"strconv"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromEnv(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want Shard
	}{
		{"nothing set: whole run", nil, Shard{1, 1}},
		{"explicit", map[string]string{"QUAL_SHARD": "2/3"}, Shard{2, 3}},
		{"kubernetes index 0 of 2", map[string]string{"JOB_COMPLETION_INDEX": "0", "QUAL_SHARD_TOTAL": "2"}, Shard{1, 2}},
		{"kubernetes index 1 of 2", map[string]string{"JOB_COMPLETION_INDEX": "1", "QUAL_SHARD_TOTAL": "2"}, Shard{2, 2}},
		{"gitlab 1-based", map[string]string{"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "4"}, Shard{3, 4}},
		{"gitlab job without parallel", map[string]string{"CI_NODE_TOTAL": "1"}, Shard{1, 1}},
		{"explicit agrees with kubernetes", map[string]string{"QUAL_SHARD": "2/2", "JOB_COMPLETION_INDEX": "1", "QUAL_SHARD_TOTAL": "2"}, Shard{2, 2}},
		{"explicit supplies the total kubernetes lacks", map[string]string{"QUAL_SHARD": "1/4", "JOB_COMPLETION_INDEX": "0"}, Shard{1, 4}},
		{"explicit agrees with gitlab", map[string]string{"QUAL_SHARD": "1/2", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}, Shard{1, 2}},
		{"kubernetes and gitlab agree", map[string]string{"JOB_COMPLETION_INDEX": "0", "QUAL_SHARD_TOTAL": "2", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}, Shard{1, 2}},
		{"spaces tolerated", map[string]string{"QUAL_SHARD": " 1 / 2 "}, Shard{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FromEnv(env(c.env))
			if err != nil {
				t.Fatalf("FromEnv: %v", err)
			}
			if got != c.want {
				t.Fatalf("FromEnv = %v, want %v", got, c.want)
			}
		})
	}
}

// Every error names the variables involved, so the user knows which one to fix.
func TestFromEnvErrors(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		names []string
	}{
		{"explicit malformed", map[string]string{"QUAL_SHARD": "2"}, []string{"QUAL_SHARD"}},
		{"explicit out of range", map[string]string{"QUAL_SHARD": "3/2"}, []string{"QUAL_SHARD"}},
		{"explicit zero", map[string]string{"QUAL_SHARD": "0/2"}, []string{"QUAL_SHARD"}},
		{"explicit disagrees with kubernetes index", map[string]string{"QUAL_SHARD": "1/2", "JOB_COMPLETION_INDEX": "1", "QUAL_SHARD_TOTAL": "2"}, []string{"QUAL_SHARD", "JOB_COMPLETION_INDEX", "QUAL_SHARD_TOTAL"}},
		{"explicit disagrees with kubernetes total", map[string]string{"QUAL_SHARD": "1/3", "JOB_COMPLETION_INDEX": "0", "QUAL_SHARD_TOTAL": "2"}, []string{"QUAL_SHARD", "QUAL_SHARD_TOTAL"}},
		{"explicit disagrees with index-only kubernetes", map[string]string{"QUAL_SHARD": "1/3", "JOB_COMPLETION_INDEX": "2"}, []string{"QUAL_SHARD", "JOB_COMPLETION_INDEX"}},
		{"explicit disagrees with gitlab", map[string]string{"QUAL_SHARD": "2/2", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}, []string{"QUAL_SHARD", "CI_NODE_INDEX", "CI_NODE_TOTAL"}},
		{"kubernetes total missing", map[string]string{"JOB_COMPLETION_INDEX": "0"}, []string{"JOB_COMPLETION_INDEX", "QUAL_SHARD_TOTAL"}},
		{"kubernetes index out of range", map[string]string{"JOB_COMPLETION_INDEX": "2", "QUAL_SHARD_TOTAL": "2"}, []string{"JOB_COMPLETION_INDEX", "QUAL_SHARD_TOTAL"}},
		{"kubernetes index negative", map[string]string{"JOB_COMPLETION_INDEX": "-1", "QUAL_SHARD_TOTAL": "2"}, []string{"JOB_COMPLETION_INDEX"}},
		{"kubernetes index not a number", map[string]string{"JOB_COMPLETION_INDEX": "one", "QUAL_SHARD_TOTAL": "2"}, []string{"JOB_COMPLETION_INDEX"}},
		{"total not a number", map[string]string{"JOB_COMPLETION_INDEX": "0", "QUAL_SHARD_TOTAL": "two"}, []string{"QUAL_SHARD_TOTAL"}},
		{"total without any index", map[string]string{"QUAL_SHARD_TOTAL": "2"}, []string{"QUAL_SHARD_TOTAL", "JOB_COMPLETION_INDEX", "QUAL_SHARD"}},
		{"gitlab index out of range", map[string]string{"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "2"}, []string{"CI_NODE_INDEX", "CI_NODE_TOTAL"}},
		{"gitlab index zero", map[string]string{"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "2"}, []string{"CI_NODE_INDEX"}},
		{"gitlab total missing", map[string]string{"CI_NODE_INDEX": "1"}, []string{"CI_NODE_INDEX", "CI_NODE_TOTAL"}},
		{"gitlab index missing", map[string]string{"CI_NODE_TOTAL": "3"}, []string{"CI_NODE_INDEX", "CI_NODE_TOTAL"}},
		{"kubernetes and gitlab disagree", map[string]string{"JOB_COMPLETION_INDEX": "0", "QUAL_SHARD_TOTAL": "2", "CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "2"}, []string{"JOB_COMPLETION_INDEX", "CI_NODE_INDEX"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FromEnv(env(c.env))
			if err == nil {
				t.Fatalf("FromEnv = %v, want an error", got)
			}
			for _, n := range c.names {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("error %q does not name %s", err, n)
				}
			}
		})
	}
}

// A Kubernetes Job with n completions runs indexes 0..n-1: they must map onto shards 1..n,
// each exactly once.
func TestKubernetesIndexesCoverEveryShard(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		seen := map[Shard]bool{}
		for i := 0; i < n; i++ {
			s, err := FromEnv(env(map[string]string{"JOB_COMPLETION_INDEX": itoa(i), "QUAL_SHARD_TOTAL": itoa(n)}))
			if err != nil {
				t.Fatal(err)
			}
			if s.Total != n || s.Index != i+1 || seen[s] {
				t.Fatalf("index %d of %d -> %v", i, n, s)
			}
			seen[s] = true
		}
	}
}

func TestParseRoundTrip(t *testing.T) {
	for _, spec := range []string{"1/1", "1/2", "7/9"} {
		s, err := Parse(spec)
		if err != nil || s.String() != spec {
			t.Fatalf("Parse(%q) = %v, %v", spec, s, err)
		}
	}
	if s, err := Parse(""); err != nil || s != Whole() {
		t.Fatalf(`Parse("") = %v, %v; want the whole run`, s, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
