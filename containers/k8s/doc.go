// Package k8s holds the Kubernetes manifests that run a sharded qualification as an Indexed Job
// (qualify-shards.yaml) and merge it (qualify-merge.yaml), and the images they use. Its test
// decodes every manifest strictly with the k8s.io/api types and checks the index → shard
// mapping; see README.md here for the commands and the Docker-engine trade-off.
package k8s
