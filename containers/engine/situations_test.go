package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A machine situation played with stub commands: the only programs on PATH are the stubs and the
// few real tools the scripts use, so a Docker installed on the machine running the test cannot
// leak into the decision. Each stub appends its command line to calls.log and reads or writes
// marker files in the state directory: engine-up (the engine answers), has-docker / has-dockerd
// (the binaries exist), docker-ce-cli (dpkg knows that package).
type machine struct {
	t     *testing.T
	bin   string // the PATH
	state string
}

// stubs, by name: each is a bash body run with $S = the state directory.
var situationStubs = map[string]string{
	"docker": `[ -e "$S/has-docker" ] || { echo "bash: docker: command not found" >&2; exit 127; }
case "$1" in
  info|version) [ -e "$S/engine-up" ] && { echo "27.0.0"; exit 0; }
    n=$(cat "$S/polls" 2>/dev/null || echo 0); echo $((n+1)) > "$S/polls"
    if [ -n "${UP_AFTER:-}" ] && [ "$n" -ge "$UP_AFTER" ]; then touch "$S/engine-up"; exit 0; fi
    echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock" >&2; exit 1;;
esac`,
	"dockerd":    `[ -e "$S/has-dockerd" ] || exit 127; [ -n "${DOCKERD_HANGS:-}" ] || touch "$S/engine-up"`,
	"apt-get":    `case "$*" in *"install"*docker.io*) touch "$S/has-docker" "$S/has-dockerd";; esac`,
	"dpkg-query": `pkg="${*: -1}"; if grep -qx "$pkg" "$S/dpkg-installed" 2>/dev/null; then printf 'install ok installed'; else exit 1; fi`,
	"pgrep":      `exit 1`,
	"setsid":     `"$@"`,
	"nohup":      `"$@"`,
	"sleep":      `:`,
	"systemctl":  `case "$1" in cat) [ -e "$S/docker-service" ];; start) touch "$S/engine-up";; *) :;; esac`,
}

// Real tools the scripts call besides the stubbed ones.
var situationTools = []string{"bash", "seq", "grep", "tail", "head", "cat", "id", "touch", "dirname", "printf", "env", "ln"}

func newMachine(t *testing.T, markers ...string) *machine {
	t.Helper()
	m := &machine{t: t, bin: t.TempDir(), state: t.TempDir()}
	for name, body := range situationStubs {
		m.write(name, "#!/bin/bash\nS="+m.state+"\necho \""+name+" $*\" >> \"$S/calls.log\"\n"+body+"\n")
	}
	// docker and dockerd are on PATH only while the situation has them (link, and apt-get's stub).
	for _, name := range []string{"docker", "dockerd"} {
		if err := os.Rename(filepath.Join(m.bin, name), filepath.Join(m.state, name+".stub")); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range situationTools {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("the situation test needs %s: %v", tool, err)
		}
		if err := os.Symlink(path, filepath.Join(m.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	for _, marker := range markers {
		m.mark(marker)
	}
	return m
}

func (m *machine) write(name, script string) {
	if err := os.WriteFile(filepath.Join(m.bin, name), []byte(script), 0o755); err != nil {
		m.t.Fatal(err)
	}
}

// mark records a fact of the machine; has-docker and has-dockerd put the program on PATH.
func (m *machine) mark(marker string) {
	if err := os.WriteFile(filepath.Join(m.state, marker), nil, 0o644); err != nil {
		m.t.Fatal(err)
	}
	m.link()
}

// link puts docker/dockerd on PATH when their markers exist.
func (m *machine) link() {
	for _, name := range []string{"docker", "dockerd"} {
		if _, err := os.Stat(filepath.Join(m.state, "has-"+name)); err == nil {
			os.Symlink(filepath.Join(m.state, name+".stub"), filepath.Join(m.bin, name))
		}
	}
}

// run runs a script of this directory tree in the situation and returns output, exit code and
// the stub calls in order.
func (m *machine) run(script string, args []string, env ...string) (string, int, []string) {
	m.t.Helper()
	// apt-get installing docker.io must make docker/dockerd appear on PATH, as dpkg would.
	m.write("apt-get", "#!/bin/bash\nS="+m.state+"\necho \"apt-get $*\" >> \"$S/calls.log\"\n"+
		situationStubs["apt-get"]+"\n"+
		`for n in docker dockerd; do [ -e "$S/has-$n" ] && [ ! -e "`+m.bin+`/$n" ] && ln -s "$S/$n.stub" "`+m.bin+`/$n"; done; exit 0`+"\n")
	cmd := exec.Command(filepath.Join(m.bin, "bash"), append([]string{script}, args...)...)
	cmd.Env = append([]string{
		"PATH=" + m.bin,
		"HOME=" + m.state,
		"DOCKERD_LOG=" + filepath.Join(m.state, "dockerd.log"),
		"QUAL_SYSTEMD_DIR=" + filepath.Join(m.state, "no-systemd"),
		"QUAL_DOCKERD_WAIT=3",
		"QUAL_CACHE=" + filepath.Join(m.state, "cache"),
	}, env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		m.t.Fatalf("%s: %v", script, err)
	}
	log, _ := os.ReadFile(filepath.Join(m.state, "calls.log"))
	var calls []string
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if line != "" && !strings.HasPrefix(line, "docker info") && !strings.HasPrefix(line, "docker version") &&
			!strings.HasPrefix(line, "sleep") && !strings.HasPrefix(line, "dpkg-query") {
			calls = append(calls, line)
		}
	}
	return string(out), code, calls
}

func hasCall(calls []string, prefix string) bool {
	return slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

// Each machine situation ensure-docker.sh decides between, and what it must do there. (d) is this
// project's own machine kind: a static Docker CLI at /usr/local/bin/docker, no engine, no init.
func TestEnsureDockerMachineSituations(t *testing.T) {
	cases := []struct {
		name    string
		markers []string
		env     []string
		code    int
		want    []string // stub calls that must happen
		never   []string // stub calls that must not
		says    string
	}{
		{name: "a engine answers", markers: []string{"has-docker", "engine-up"},
			never: []string{"apt-get", "dockerd", "systemctl start"}, says: "using it"},
		{name: "b DOCKER_HOST sidecar still starting", markers: []string{"has-docker"},
			env:   []string{"DOCKER_HOST=tcp://127.0.0.1:2375", "UP_AFTER=3", "QUAL_DOCKER_WAIT=10"},
			never: []string{"apt-get", "dockerd", "systemctl"}, says: "engine ready after"},
		{name: "c Docker CE under systemd", markers: []string{"has-docker", "docker-service"},
			env:  []string{"QUAL_SYSTEMD_DIR=@state"},
			want: []string{"systemctl start docker.service"}, never: []string{"apt-get", "dockerd"}, says: "systemd docker.service"},
		{name: "d a Docker CLI only, no engine, no init", markers: []string{"has-docker"},
			want: []string{"apt-get install -y -qq --no-install-recommends docker.io", "dockerd"}, says: "engine ready after"},
		{name: "e nothing at all", want: []string{"apt-get install -y -qq --no-install-recommends docker.io", "dockerd"},
			says: "engine ready after"},
		{name: "f an engine that never answers", markers: []string{"has-docker", "has-dockerd"}, env: []string{"DOCKERD_HANGS=1"},
			code: 1, want: []string{"dockerd"}, never: []string{"apt-get"}, says: "Tried: dockerd"},
		{name: "Docker CE's CLI package without an engine", markers: []string{"has-docker", "dpkg-installed"},
			code: 1, never: []string{"apt-get", "dockerd"}, says: "conflicts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMachine(t, c.markers...)
			if slices.Contains(c.markers, "dpkg-installed") {
				os.WriteFile(filepath.Join(m.state, "dpkg-installed"), []byte("docker-ce-cli\n"), 0o644)
			}
			env := slices.Clone(c.env)
			for i, e := range env {
				env[i] = strings.Replace(e, "@state", m.state, 1)
			}
			out, code, calls := m.run("ensure-docker.sh", nil, env...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; calls %q; output:\n%s", code, c.code, calls, out)
			}
			for _, w := range c.want {
				if !hasCall(calls, w) {
					t.Errorf("did not run %q; calls %q; output:\n%s", w, calls, out)
				}
			}
			for _, n := range c.never {
				if hasCall(calls, n) {
					t.Errorf("ran %q, which this situation must not; calls %q; output:\n%s", n, calls, out)
				}
			}
			if !strings.Contains(out, c.says) {
				t.Errorf("output does not say %q:\n%s", c.says, out)
			}
		})
	}
}

// deps.sh installs exactly the packages dpkg does not have, and never an engine: whether the
// machine needs docker.io is ensure-docker.sh's decision alone (a machine with only a Docker CLI
// once lost its engine install because deps.sh dropped docker.io when it saw the CLI).
func TestDepsAptChoice(t *testing.T) {
	deps, err := filepath.Abs("../../harness/scripts/deps.sh")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("missing packages are installed, nothing else", func(t *testing.T) {
		m := newMachine(t, "has-docker")
		os.WriteFile(filepath.Join(m.state, "dpkg-installed"), []byte("sox\ngcc\npocketsphinx\n"), 0o644)
		out, code, calls := m.run(deps, []string{"--apt-only"})
		if code != 0 {
			t.Fatalf("exit %d; output:\n%s", code, out)
		}
		var install string
		for _, c := range calls {
			if strings.HasPrefix(c, "apt-get") && strings.Contains(c, " install ") {
				install = c
			}
		}
		if install == "" {
			t.Fatalf("no apt-get install; calls %q", calls)
		}
		for _, p := range []string{"libpocketsphinx-dev", "sctk", "debootstrap", "chromium"} {
			if !strings.Contains(install, " "+p) {
				t.Errorf("missing package %s not installed: %q", p, install)
			}
		}
		for _, p := range []string{" sox", " gcc ", " pocketsphinx ", "docker"} {
			if strings.Contains(install+" ", p) {
				t.Errorf("installs %q, which is present or not deps.sh's to decide: %q", p, install)
			}
		}
	})
	t.Run("everything present: apt is not called", func(t *testing.T) {
		m := newMachine(t)
		src, err := os.ReadFile(deps)
		if err != nil {
			t.Fatal(err)
		}
		block := string(src)[strings.Index(string(src), "APT_PACKAGES=("):strings.Index(string(src), "\n)\n")]
		var all []string
		for _, line := range strings.Split(block, "\n")[1:] {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				all = append(all, strings.Fields(line)...)
			}
		}
		os.WriteFile(filepath.Join(m.state, "dpkg-installed"), []byte(strings.Join(all, "\n")+"\n"), 0o644)
		out, code, calls := m.run(deps, []string{"--apt-only"})
		if code != 0 || hasCall(calls, "apt-get") || !strings.Contains(out, "packages present") {
			t.Fatalf("exit %d, calls %q, output:\n%s", code, calls, out)
		}
	})
}
