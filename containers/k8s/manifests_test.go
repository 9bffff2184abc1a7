package k8s

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/trtmc-qual/trtmc-qual/harness/shard"
)

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// manifests is what the two files declare, decoded strictly.
type manifests struct {
	pvc    *corev1.PersistentVolumeClaim
	shards *batchv1.Job
	merge  *batchv1.Job
}

// decodeStrict decodes one YAML document into the k8s.io/api type of its kind; an unknown or
// duplicated field is an error (sigs.k8s.io/yaml.UnmarshalStrict: a typo such as
// `completionMod` would otherwise be dropped silently and the Job would run unindexed).
func decodeStrict(doc []byte) (any, error) {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return nil, err
	}
	var obj any
	switch meta.APIVersion + " " + meta.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	default:
		return nil, fmt.Errorf("unexpected kind %q %q", meta.APIVersion, meta.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func readManifests(t *testing.T) manifests {
	t.Helper()
	var m manifests
	for _, file := range []string{"qualify-shards.yaml", "qualify-merge.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSeparator.Split(string(data), -1) {
			if len(bytes.TrimSpace(stripComments([]byte(doc)))) == 0 {
				continue
			}
			obj, err := decodeStrict([]byte(doc))
			if err != nil {
				t.Fatalf("%s document %d: %v", file, i+1, err)
			}
			switch o := obj.(type) {
			case *corev1.PersistentVolumeClaim:
				m.pvc = o
			case *batchv1.Job:
				if o.Name == "trtmc-qual-merge" {
					m.merge = o
				} else {
					m.shards = o
				}
			}
		}
	}
	if m.pvc == nil || m.shards == nil || m.merge == nil {
		t.Fatalf("want a PersistentVolumeClaim, the shard Job and the merge Job; got %+v", m)
	}
	return m
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}

func TestStrictDecodingRejectsUnknownFields(t *testing.T) {
	data, err := os.ReadFile("qualify-shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := docSeparator.Split(string(data), -1)
	job := docs[len(docs)-1]
	for _, typo := range []struct{ from, to string }{
		{"  completionMode: Indexed\n", "  completionMod: Indexed\n"},
		{"          restartPolicy: Always\n", "          restartPolicy: Always\n          privilegd: true\n"},
		{"  parallelism: 2\n", "  parallelism: 2\n  parallelism: 3\n"}, // duplicate key
	} {
		if !strings.Contains(job, typo.from) {
			t.Fatalf("the shard Job no longer contains %q", typo.from)
		}
		if _, err := decodeStrict([]byte(strings.Replace(job, typo.from, typo.to, 1))); err == nil {
			t.Errorf("strict decoding accepted %q", typo.to)
		}
	}
}

func envOf(c corev1.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	return env
}

func container(t *testing.T, cs []corev1.Container, name string) corev1.Container {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return corev1.Container{}
}

// Every index the Job controller hands out maps to a distinct shard, and together they are
// shards 1..n of n: QUAL_SHARD_TOTAL must equal completions.
func TestIndexedJobShardMapping(t *testing.T) {
	job := readManifests(t).shards
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode = %v, want Indexed", spec.CompletionMode)
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Parallelism > *spec.Completions || *spec.Parallelism < 1 {
		t.Fatalf("completions %v, parallelism %v: want 1 <= parallelism <= completions", spec.Completions, spec.Parallelism)
	}
	n := int(*spec.Completions)
	env := envOf(container(t, spec.Template.Spec.Containers, "qualify"))
	if env[shard.EnvTotal] != strconv.Itoa(n) {
		t.Fatalf("%s = %q, want completions %d", shard.EnvTotal, env[shard.EnvTotal], n)
	}
	if _, set := env[shard.EnvShard]; set {
		t.Fatalf("%s is set in the pod: every pod would run the same shard", shard.EnvShard)
	}
	seen := map[int]bool{}
	for idx := 0; idx < n; idx++ {
		env[shard.EnvK8sIndex] = strconv.Itoa(idx)
		got, err := shard.FromEnv(func(k string) string { return env[k] })
		if err != nil {
			t.Fatalf("index %d: %v", idx, err)
		}
		if got.Total != n || got.Index != idx+1 || seen[got.Index] {
			t.Fatalf("index %d -> shard %v, want %d/%d once", idx, got, idx+1, n)
		}
		seen[got.Index] = true
	}
	if merge := envOf(container(t, readManifests(t).merge.Spec.Template.Spec.Containers, "merge")); merge[shard.EnvTotal] != strconv.Itoa(n) {
		t.Fatalf("merge Job expects %s=%q shards, the shard Job runs %d", shard.EnvTotal, merge[shard.EnvTotal], n)
	}
}

const gpuResource corev1.ResourceName = "nvidia.com/gpu"

// One GPU per pod, requested where the scheduler and device plugin account for it.
func TestOneGPUPerPod(t *testing.T) {
	m := readManifests(t)
	pod := m.shards.Spec.Template.Spec
	total := int64(0)
	for _, c := range append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...) {
		if q, ok := c.Resources.Limits[gpuResource]; ok {
			total += q.Value()
			if r := c.Resources.Requests[gpuResource]; r.Value() != q.Value() {
				t.Errorf("%s: GPU request %s != limit %s", c.Name, r.String(), q.String())
			}
		}
	}
	if total != 1 {
		t.Fatalf("the shard pod asks for %d GPUs, want 1", total)
	}
	for _, c := range m.merge.Spec.Template.Spec.Containers {
		if _, ok := c.Resources.Limits[gpuResource]; ok {
			t.Errorf("merge container %s asks for a GPU; merging is offline", c.Name)
		}
	}
}

// The engine is a native sidecar that testcontainers reaches on the pod's loopback, and
// bind-mounted paths exist at the same place in both containers.
func TestDockerEngineSidecar(t *testing.T) {
	pod := readManifests(t).shards.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (a failed shard is retried by the Job, per index)", pod.RestartPolicy)
	}
	dockerd := container(t, pod.InitContainers, "dockerd")
	if dockerd.RestartPolicy == nil || *dockerd.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Fatal("dockerd must be a native sidecar (init container with restartPolicy Always) so the pod ends with the suite")
	}
	if dockerd.SecurityContext == nil || dockerd.SecurityContext.Privileged == nil || !*dockerd.SecurityContext.Privileged {
		t.Fatal("dockerd needs a privileged security context")
	}
	qualify := container(t, pod.Containers, "qualify")
	env := envOf(qualify)
	if !strings.Contains(strings.Join(dockerd.Args, " "), "--host="+env["DOCKER_HOST"]) {
		t.Fatalf("DOCKER_HOST=%q is not where dockerd listens (%v)", env["DOCKER_HOST"], dockerd.Args)
	}
	if env["TESTCONTAINERS_HOST_OVERRIDE"] != "localhost" {
		t.Fatal("published ports are on the pod's loopback: TESTCONTAINERS_HOST_OVERRIDE must be localhost")
	}
	mounts := map[string]string{}
	for _, vm := range dockerd.VolumeMounts {
		mounts[vm.Name] = vm.MountPath
	}
	for _, vm := range qualify.VolumeMounts {
		if p, ok := mounts[vm.Name]; ok && p != vm.MountPath {
			t.Errorf("volume %s is at %s in dockerd but %s in qualify", vm.Name, p, vm.MountPath)
		}
	}
	if mounts["hf-cache"] == "" {
		t.Error("the model cache must be mounted in the engine sidecar too")
	}
}

// Evidence goes to the shared volume the merge Job reads.
func TestEvidenceVolumeShared(t *testing.T) {
	m := readManifests(t)
	if len(m.pvc.Spec.AccessModes) != 1 || m.pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Fatalf("evidence volume access modes %v, want ReadWriteMany (shards run on several nodes)", m.pvc.Spec.AccessModes)
	}
	for _, job := range []*batchv1.Job{m.shards, m.merge} {
		found := false
		for _, v := range job.Spec.Template.Spec.Volumes {
			if v.Name == "evidence" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == m.pvc.Name {
				found = true
			}
		}
		if !found {
			t.Errorf("job %s does not mount the claim %s as evidence", job.Name, m.pvc.Name)
		}
	}
	shardArgs := strings.Join(container(t, m.shards.Spec.Template.Spec.Containers, "qualify").Args, "\n")
	for _, want := range []string{"make qualify-all", `RUN_ID="shard-$idx"`, "/evidence/"} {
		if !strings.Contains(shardArgs, want) {
			t.Errorf("the shard command lacks %q", want)
		}
	}
	mergeArgs := strings.Join(container(t, m.merge.Spec.Template.Spec.Containers, "merge").Args, "\n")
	for _, want := range []string{"/evidence/shard-*", "qual merge --key /keys/signing.pub -o /evidence/merged", "qual sign /evidence/merged", "qual verify"} {
		if !strings.Contains(mergeArgs, want) {
			t.Errorf("the merge command lacks %q", want)
		}
	}
}
