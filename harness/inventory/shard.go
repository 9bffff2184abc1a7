package inventory

import (
	"sort"

	"github.com/trtmc-qual/trtmc-qual/harness/evidence"
)

// Shard keeps the rows of shard i of n. Checkpoints (all their profiles together) are dealt
// round-robin in sorted order, so every checkpoint lands in exactly one shard and the split
// depends only on the inventory.
func Shard(rows []evidence.InventoryRow, i, n int) []evidence.InventoryRow {
	var ids []string
	seen := map[string]bool{}
	for _, r := range rows {
		key := r.Checkpoint + "@" + r.Revision
		if !seen[key] {
			seen[key] = true
			ids = append(ids, key)
		}
	}
	sort.Strings(ids)
	mine := map[string]bool{}
	for k, id := range ids {
		if k%n == i-1 {
			mine[id] = true
		}
	}
	var out []evidence.InventoryRow
	for _, r := range rows {
		if mine[r.Checkpoint+"@"+r.Revision] {
			out = append(out, r)
		}
	}
	return out
}
