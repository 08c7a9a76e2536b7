// Package deploy_test checks the deployment recipe (Dockerfile,
// compose.yaml, config.toml) without a container engine: the compose file
// parses and wires what docs/deployment.md says, the Dockerfile keeps its
// rules, its build command builds, and the config loads with harness9's
// own loader.
package deploy_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/harness9/harness9/internal/config"
)

type service struct {
	Image           string            `yaml:"image"`
	Build           map[string]string `yaml:"build"`
	Command         []string          `yaml:"command"`
	Environment     map[string]string `yaml:"environment"`
	Volumes         []string          `yaml:"volumes"`
	Healthcheck     struct{ Test []string }
	DependsOn       map[string]map[string]string `yaml:"depends_on"`
	StopGracePeriod string                       `yaml:"stop_grace_period"`
}

func compose(t *testing.T) map[string]service {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Services map[string]service }
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return f.Services
}

// The compose file has PostgreSQL, Temporal, one serve and two workers;
// every harness9 service is built from deploy/Dockerfile, reaches the
// store with the password in PGPASSWORD (not in the URL), mounts the
// shared config and repos, and waits for its dependencies; serve's health
// check is /readyz; the workers get longer than the drain to stop.
func TestCompose(t *testing.T) {
	svcs := compose(t)
	var names []string
	for n := range svcs {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"postgres", "serve", "temporal", "worker-1", "worker-2"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	c := loadConfig(t)
	for _, n := range []string{"serve", "worker-1", "worker-2"} {
		s := svcs[n]
		if s.Build["dockerfile"] != "deploy/Dockerfile" || s.Build["context"] != ".." {
			t.Errorf("%s: build %v", n, s.Build)
		}
		store := s.Environment["HARNESS9_STORE"]
		if !strings.HasPrefix(store, "postgres://harness9@postgres:5432/") || strings.Contains(store, ":harness9@") {
			t.Errorf("%s: HARNESS9_STORE %q (the password belongs in PGPASSWORD)", n, store)
		}
		if s.Environment["PGPASSWORD"] == "" {
			t.Errorf("%s: no PGPASSWORD", n)
		}
		if !slices.Contains(s.Volumes, "./config.toml:/home/harness9/.harness9/config.toml") || !slices.Contains(s.Volumes, "repos:/srv/repos") {
			t.Errorf("%s: volumes %v", n, s.Volumes)
		}
		if s.DependsOn["postgres"]["condition"] != "service_healthy" || s.DependsOn["temporal"]["condition"] != "service_healthy" {
			t.Errorf("%s: depends_on %v", n, s.DependsOn)
		}
		grace, err := time.ParseDuration(s.StopGracePeriod)
		if err != nil || grace <= c.Temporal.DrainTimeout {
			t.Errorf("%s: stop_grace_period %q, want more than drain_timeout %v (docker kills at the end of it)", n, s.StopGracePeriod, c.Temporal.DrainTimeout)
		}
	}
	if got := svcs["serve"].Command; len(got) == 0 || got[0] != "serve" {
		t.Errorf("serve: command %v", got)
	}
	if hc := strings.Join(svcs["serve"].Healthcheck.Test, " "); !strings.Contains(hc, "/readyz") {
		t.Errorf("serve: healthcheck %q, want /readyz", hc)
	}
	for _, n := range []string{"worker-1", "worker-2"} {
		if got := svcs[n].Command; !slices.Equal(got, []string{"worker"}) {
			t.Errorf("%s: command %v", n, got)
		}
	}
}

// config.toml loads with harness9's loader, for the temporal engine on
// the compose network's Temporal with one named task queue.
func TestConfig(t *testing.T) {
	c := loadConfig(t)
	if c.Engine != config.EngineTemporal || c.Temporal.Address != "temporal:7233" || c.Temporal.TaskQueue == "" ||
		!slices.Equal(c.Serve.Roots, []string{"/srv/repos"}) || !c.Temporal.DrainSet {
		t.Errorf("config: engine %q, temporal %+v, roots %v", c.Engine, c.Temporal, c.Serve.Roots)
	}
}

func loadConfig(t *testing.T) *config.Config {
	t.Helper()
	home := t.TempDir()
	b, err := os.ReadFile("config.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HARNESS9_HOME": home, "HOME": t.TempDir()}
	c, err := config.Load(config.Flags{Workdir: t.TempDir()}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	return c
}

// The Dockerfile is multi-stage, runs as an unprivileged user, copies only
// the binary out of the build stage, and its build command builds here.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var froms, users []string
	var build string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		switch f := strings.Fields(line); {
		case len(f) == 0 || strings.HasPrefix(line, "#"):
		case f[0] == "FROM":
			froms = append(froms, line)
			users = nil // USER applies to the stage it is in
		case f[0] == "USER":
			users = append(users, f[1])
		case f[0] == "ADD":
			t.Errorf("ADD fetches or unpacks implicitly; use COPY: %s", line)
		case f[0] == "RUN" && strings.Contains(line, "go build"):
			build = strings.TrimSpace(strings.TrimPrefix(line, "RUN"))
		case f[0] == "COPY" && strings.HasPrefix(f[1], "--from="):
			if stage := strings.TrimPrefix(f[1], "--from="); !strings.Contains(froms[0], " AS "+stage) {
				t.Errorf("COPY from an unknown stage: %s", line)
			}
		}
	}
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, got %v", froms)
	}
	if len(users) == 0 || regexp.MustCompile(`^(root|0)(:|$)`).MatchString(users[len(users)-1]) {
		t.Errorf("the final stage runs as %v, want an unprivileged user", users)
	}
	if testing.Short() {
		t.Skip("-short: not running the build command")
	}
	// The build stage's command, outside a container: CGO off, the
	// temporal tag, from the repository's root.
	m := regexp.MustCompile(`^CGO_ENABLED=0 go build (.*) -o /out/harness9 (\./cmd/harness9)$`).FindStringSubmatch(build)
	if m == nil {
		t.Fatalf("build command %q", build)
	}
	// -trimpath and -ldflags change no line that compiles but miss the
	// build cache of every other test: they are not passed.
	var flags []string
	for _, f := range strings.Fields(m[1]) {
		if f != "-trimpath" && !strings.HasPrefix(f, "-ldflags") {
			flags = append(flags, f)
		}
	}
	if !slices.Equal(flags, []string{"-tags", "temporal"}) {
		t.Errorf("build flags %v, want -tags temporal (serve and worker in one image)", flags)
	}
	out := filepath.Join(t.TempDir(), "harness9")
	args := append(append([]string{"build"}, flags...), "-o", out, m[2])
	cmd := exec.Command("go", args...)
	// CGO_ENABLED=0 is checked above, not set: with it every package
	// misses the build cache of the other tests (over 10 minutes on a
	// 2-core machine); harness9 uses no cgo either way.
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := exec.CommandContext(ctx, out, "worker", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(v), "--drain-timeout") {
		t.Errorf("the image's binary has no worker with --drain-timeout: %v\n%s", err, v)
	}
}
