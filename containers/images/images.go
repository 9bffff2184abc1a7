// Package images builds the suite's container images on a machine with no registry: a Debian
// base from debootstrap + docker import (or one the user names), the trtmc-server image, and an
// AIPerf image installed offline from a wheelhouse. Every image is tagged by a hash of its
// inputs, so a second run finds it and builds nothing.
package images

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/trtmc-qual/trtmc-qual/native/bundle"
)

// AIPerfVersion is the only AIPerf the suite runs; the image and the suite both check it.
const AIPerfVersion = "0.13.0"

// Builder builds images with the docker CLI and reports progress to Log.
type Builder struct {
	Log      io.Writer
	CacheDir string // wheelhouse and scratch (default ~/.cache/trtmc-qual; harness/config passes QUAL_CACHE)
	// BaseImage is used as the base when set ($QUAL_BASE_IMAGE); else a debootstrap base.
	BaseImage string
	// Verbose streams each long step's output (debootstrap, pip download, docker build) to Log
	// as it comes; otherwise only a failing step's tail is shown.
	Verbose bool
	// Root is the checkout the images are built for (Ensure sets it): each build is labelled
	// with it, and only its own earlier builds (or those of a checkout that no longer exists)
	// are pruned, never those of another checkout building at the same time.
	Root string
}

// rootLabel labels an image with the checkout it was built for.
const rootLabel = "org.trtmc-qual.checkout"

func (b *Builder) step(format string, args ...any) {
	fmt.Fprintf(b.Log, "[images] "+format+"\n", args...)
}

// run executes a command; its output is streamed with Verbose, and its tail is in the error.
func (b *Builder) run(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	if err := b.output(cmd); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// output runs cmd, streaming its combined output to Log when Verbose; a failure carries the
// last 4,000 bytes of the output.
func (b *Builder) output(cmd *exec.Cmd) error {
	var out bytes.Buffer
	var w io.Writer = &out
	if b.Verbose && b.Log != nil {
		w = io.MultiWriter(&out, b.Log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		tail := out.String()
		if len(tail) > 4000 {
			tail = "…" + tail[len(tail)-4000:]
		}
		return fmt.Errorf("%w\n%s", err, tail)
	}
	return nil
}

// Exists reports whether the engine has an image with this reference.
func Exists(ctx context.Context, ref string) bool {
	return exec.CommandContext(ctx, "docker", "image", "inspect", ref).Run() == nil
}

func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// debootstrap inputs: changing any of them changes the base tag.
const (
	baseSuite   = "bookworm"
	baseMirror  = "http://deb.debian.org/debian"
	baseInclude = "python3,python3-venv,ca-certificates,libpocketsphinx3,libsphinxbase3"
)

// Base returns the base image: the user's, or a cached debootstrap build.
func (b *Builder) Base(ctx context.Context) (string, error) {
	if b.BaseImage != "" {
		if !Exists(ctx, b.BaseImage) {
			b.step("pulling QUAL_BASE_IMAGE %s", b.BaseImage)
			if err := b.run(ctx, nil, "docker", "pull", b.BaseImage); err != nil {
				return "", fmt.Errorf("QUAL_BASE_IMAGE %s is not present and cannot be pulled: %w", b.BaseImage, err)
			}
		}
		b.step("base: %s (QUAL_BASE_IMAGE)", b.BaseImage)
		return b.BaseImage, nil
	}
	tag := "trtmc-qual/base:" + baseSuite + "-" + hashOf(baseSuite, baseMirror, baseInclude, "minbase")
	if Exists(ctx, tag) {
		b.step("base: %s (cached)", tag)
		return tag, nil
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return "", fmt.Errorf("no base image and no debootstrap to build one: run `make deps` or set QUAL_BASE_IMAGE")
	}
	start := time.Now()
	dir, err := os.MkdirTemp(b.cacheDir(), "rootfs-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	b.step("base: debootstrap --variant=minbase %s (%s) ...", baseSuite, baseInclude)
	if err := b.run(ctx, nil, "debootstrap", "--variant=minbase", "--include="+baseInclude, baseSuite, dir, baseMirror); err != nil {
		return "", fmt.Errorf("debootstrap: %w", err)
	}
	b.step("base: debootstrap done in %.0fs; docker import ...", time.Since(start).Seconds())
	cmd := exec.CommandContext(ctx, "bash", "-c", fmt.Sprintf("tar -C %q -c . | docker import - %s", dir, tag))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("docker import: %w\n%s", err, out)
	}
	b.step("base: built %s in %.0fs", tag, time.Since(start).Seconds())
	return tag, nil
}

// CacheDirPath is where the wheelhouses and image inputs live (host binaries: HostBinDir).
func (b *Builder) CacheDirPath() string { return b.cacheDir() }

func (b *Builder) cacheDir() string {
	dir := b.CacheDir // QUAL_CACHE, read by harness/config and passed in
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "trtmc-qual")
	}
	os.MkdirAll(dir, 0o755)
	return dir
}

// buildContext is a docker build context: a Dockerfile and files to copy in.
type buildContext struct {
	dockerfile string
	files      map[string]string // name in context -> host path
	dirs       map[string]string // name in context -> host directory
}

// build runs `docker build` when no image with the inputs' tag exists.
func (b *Builder) build(ctx context.Context, repo string, bc buildContext) (string, error) {
	parts := []string{bc.dockerfile}
	names := make([]string, 0, len(bc.files))
	for n := range bc.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sum, err := bundle.FileSHA256(bc.files[n])
		if err != nil {
			return "", err
		}
		parts = append(parts, n, sum)
	}
	dirNames := make([]string, 0, len(bc.dirs))
	for n := range bc.dirs {
		dirNames = append(dirNames, n)
	}
	sort.Strings(dirNames)
	for _, n := range dirNames {
		entries, err := os.ReadDir(bc.dirs[n])
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") { // the wheelhouse's .complete marker: bookkeeping, not image content
				continue
			}
			info, _ := e.Info()
			parts = append(parts, n+"/"+e.Name(), fmt.Sprint(info.Size()))
		}
	}
	tag := repo + ":" + hashOf(parts...)
	if Exists(ctx, tag) {
		b.step("%s: %s (cached)", repo, tag)
		return tag, b.claim(tag)
	}
	start := time.Now()
	dir, err := os.MkdirTemp(b.cacheDir(), "context-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(bc.dockerfile), 0o644); err != nil {
		return "", err
	}
	for n, src := range bc.files {
		if err := copyFile(src, filepath.Join(dir, n)); err != nil {
			return "", err
		}
	}
	for n, src := range bc.dirs {
		if err := os.Symlink(src, filepath.Join(dir, n)); err != nil {
			return "", err
		}
	}
	b.step("%s: docker build %s ...", repo, tag)
	// Context via tar with -h, so the wheelhouse symlink is followed rather than copied twice.
	cmd := exec.CommandContext(ctx, "bash", "-c", fmt.Sprintf("tar -C %q -ch . | docker build --label %q -t %s -", dir, rootLabel+"="+b.Root, tag))
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	if err := b.output(cmd); err != nil {
		return "", fmt.Errorf("docker build %s: %w", tag, err)
	}
	b.step("%s: built %s in %.0fs", repo, tag, time.Since(start).Seconds())
	if err := b.claim(tag); err != nil {
		return "", err
	}
	b.pruneOlder(ctx, repo, tag)
	return tag, nil
}

// claim records that this checkout uses the image, beside the label of the checkout that built
// it: a checkout that finds the image already built (another checkout's build of the same inputs)
// must keep it from being pruned as long as this checkout exists. An image has one label and
// relabelling would rebuild it, so the users are files in the cache, one per checkout.
func (b *Builder) claim(ref string) error {
	dir := b.claimDir(ref)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("record %s's use of %s: %w", b.Root, ref, err)
	}
	if err := os.WriteFile(filepath.Join(dir, hashOf(b.Root)), []byte(b.Root), 0o644); err != nil {
		return fmt.Errorf("record %s's use of %s: %w", b.Root, ref, err)
	}
	return nil
}

// claimDir holds the files naming the checkouts that use ref.
func (b *Builder) claimDir(ref string) string {
	return filepath.Join(b.cacheDir(), "image-users", strings.NewReplacer("/", "_", ":", "_").Replace(ref))
}

// users are the checkouts that built or use ref: its label and its claims.
func (b *Builder) users(ctx context.Context, ref string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{index .Config.Labels \""+rootLabel+"\"}}", ref).Output()
	if err != nil {
		return nil, err
	}
	var roots []string
	if root := strings.TrimSpace(string(out)); root != "" && root != "<no value>" {
		roots = append(roots, root)
	}
	entries, _ := os.ReadDir(b.claimDir(ref))
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join(b.claimDir(ref), e.Name())); err == nil {
			roots = append(roots, string(data))
		}
	}
	return roots, nil
}

// pruneOlder removes earlier builds of repo so that the cache does not grow with every code
// change: this checkout's own, unlabelled ones, and those of a checkout that no longer exists.
// Another live checkout's build is left alone (it may be about to start it), and so is an image
// a container still uses (docker refuses).
func (b *Builder) pruneOlder(ctx context.Context, repo, keep string) {
	out, err := exec.CommandContext(ctx, "docker", "images", "--format", "{{.Repository}}:{{.Tag}}", repo).Output()
	if err != nil {
		return
	}
	for _, ref := range strings.Fields(string(out)) {
		if ref == keep || !b.prunable(ctx, ref) {
			continue
		}
		if exec.CommandContext(ctx, "docker", "rmi", ref).Run() == nil {
			os.RemoveAll(b.claimDir(ref))
			b.step("%s: removed the earlier build %s", repo, ref)
		}
	}
}

// prunable says whether an earlier build is used by no other live checkout: neither the one that
// built it nor one that found it built.
func (b *Builder) prunable(ctx context.Context, ref string) bool {
	roots, err := b.users(ctx, ref)
	if err != nil {
		return false
	}
	for _, root := range roots {
		if root == b.Root {
			continue
		}
		if _, err := os.Stat(root); err == nil {
			return false
		}
	}
	return true
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, info.Mode().Perm())
}
