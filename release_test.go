package infertrace_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of a GitHub Actions workflow the release checks.
type workflow struct {
	On struct {
		Push struct {
			Tags []string `yaml:"tags"`
		} `yaml:"push"`
	} `yaml:"on"`
	Jobs map[string]job `yaml:"jobs"`
}

// job is one job of a workflow.
type job struct {
	RunsOn   string         `yaml:"runs-on"`
	Needs    any            `yaml:"needs"`
	Perms    map[string]any `yaml:"permissions"`
	Strategy struct {
		Matrix struct {
			Include []map[string]string `yaml:"include"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	} `yaml:"steps"`
}

// runnerTarget is the OS/arch of each hosted runner the release may build
// on: cgo builds natively, so a target's runner must be of its OS and
// architecture (macos-13, the last Intel label of its kind, was retired
// in December 2025; macos-15-intel replaced it).
var runnerTarget = map[string]string{
	"ubuntu-22.04": "linux/amd64", "ubuntu-22.04-arm": "linux/arm64",
	"ubuntu-24.04": "linux/amd64", "ubuntu-24.04-arm": "linux/arm64",
	"macos-15-intel": "darwin/amd64", "macos-14": "darwin/arm64", "macos-15": "darwin/arm64",
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	b, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("release.yml does not parse: %v", err)
	}
	return w
}

// The release workflow runs on a tag v*, builds the four binaries each on
// a runner of its own OS and architecture, stamps the tag and commit with
// the -X names cmd/infertrace has (e2e's TestVersionStamped), uploads them with
// their checksums, and builds the image for linux/amd64 and linux/arm64
// with docker/build-push-action into ghcr.io.
func TestReleaseWorkflow(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t)
	if !slices.Equal(w.On.Push.Tags, []string{"v*"}) {
		t.Errorf("on.push.tags = %v, want [v*]", w.On.Push.Tags)
	}
	bin, ok := w.Jobs["binaries"]
	if !ok {
		t.Fatal("no binaries job")
	}
	var targets []string
	for _, m := range bin.Strategy.Matrix.Include {
		target := m["goos"] + "/" + m["goarch"]
		targets = append(targets, target)
		if got := runnerTarget[m["runner"]]; got != target {
			t.Errorf("%s is built on %q, a runner of %q: cgo needs its own OS and architecture", target, m["runner"], got)
		}
	}
	slices.Sort(targets)
	if want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}; !slices.Equal(targets, want) {
		t.Errorf("binaries for %v, want %v", targets, want)
	}
	if bin.RunsOn != "${{ matrix.runner }}" {
		t.Errorf("binaries run on %q, not the matrix's runner", bin.RunsOn)
	}
	build := steps(bin, func(run string) bool { return strings.Contains(run, "go build") })
	for _, want := range []string{"-X main.stampedVersion=${GITHUB_REF_NAME}", "-X main.stampedCommit=${GITHUB_SHA}", "./cmd/infertrace", "infertrace version"} {
		if !strings.Contains(build, want) {
			t.Errorf("the binaries' build step lacks %q:\n%s", want, build)
		}
	}
	uses := func(job, action string) map[string]string {
		for _, s := range w.Jobs[job].Steps {
			if strings.HasPrefix(s.Uses, action+"@") {
				return s.With
			}
		}
		t.Errorf("job %s does not use %s", job, action)
		return nil
	}
	if with := uses("binaries", "actions/setup-go"); with["go-version-file"] != "go.mod" {
		t.Errorf("setup-go takes Go from %v, want go.mod", with)
	}

	rel := w.Jobs["release"]
	if rel.Needs != "binaries" || rel.Perms["contents"] != "write" {
		t.Errorf("release: needs %v, permissions %v", rel.Needs, rel.Perms)
	}
	up := steps(rel, func(string) bool { return true })
	for _, want := range []string{"sha256sum", "gh release upload", "checksums.txt"} {
		if !strings.Contains(up, want) {
			t.Errorf("the release job does not run %q", want)
		}
	}

	img := w.Jobs["image"]
	var platforms []string
	for _, m := range img.Strategy.Matrix.Include {
		platforms = append(platforms, m["platform"])
		if runnerTarget[m["runner"]] != m["platform"] {
			t.Errorf("image %s is built on %s", m["platform"], m["runner"])
		}
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("image platforms %v", platforms)
	}
	bp := uses("image", "docker/build-push-action")
	if !strings.Contains(bp["outputs"], "name=ghcr.io/${{ github.repository }}") || !strings.Contains(bp["outputs"], "push=true") ||
		!strings.Contains(bp["build-args"], "VERSION=${{ github.ref_name }}") || !strings.Contains(bp["build-args"], "COMMIT=${{ github.sha }}") {
		t.Errorf("build-push-action: %v", bp)
	}
	if img.Perms["packages"] != "write" || w.Jobs["image-manifest"].Perms["packages"] != "write" {
		t.Error("the image jobs cannot write packages")
	}
	if !strings.Contains(steps(w.Jobs["image-manifest"], func(string) bool { return true }), "docker buildx imagetools create") {
		t.Error("image-manifest creates no manifest list")
	}
}

// steps joins the run scripts of job's steps that keep says to.
func steps(j job, keep func(string) bool) string {
	var b strings.Builder
	for _, s := range j.Steps {
		if s.Run != "" && keep(s.Run) {
			b.WriteString(s.Run + "\n")
		}
	}
	return b.String()
}

// The Dockerfile builds with cgo in a Go of go.mod's release on the same
// Debian as its runtime image (the binary needs their glibc and
// libstdc++), stamps version and commit with the names cmd/infertrace has,
// and runs as a user other than root with infertrace as its entry point.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goVer := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(string(mod))
	from := regexp.MustCompile(`(?m)^FROM (\S+)(?: AS (\S+))?$`).FindAllStringSubmatch(df, -1)
	if len(from) != 2 {
		t.Fatalf("want two stages, a builder and the runtime: %v", from)
	}
	builder, runtime := from[0][1], from[1][1]
	m := regexp.MustCompile(`^golang:(\d+\.\d+)-(\w+)$`).FindStringSubmatch(builder)
	if m == nil || goVer == nil || m[1] != goVer[1] {
		t.Fatalf("builder %s: want golang:%v-DEBIAN (go.mod's Go)", builder, goVer)
	}
	if runtime != "debian:"+m[2]+"-slim" {
		t.Errorf("runtime %s, want debian:%s-slim, the builder's Debian", runtime, m[2])
	}
	for _, want := range []string{"CGO_ENABLED=1", "-X main.stampedVersion=${VERSION}", "-X main.stampedCommit=${COMMIT}",
		"COPY --from=" + from[0][2] + " ", `ENTRYPOINT ["infertrace"]`} {
		if !strings.Contains(df, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	user := regexp.MustCompile(`(?m)^USER (\S+)`).FindStringSubmatch(df)
	if user == nil || strings.HasPrefix(user[1], "root") || strings.HasPrefix(user[1], "0") {
		t.Errorf("the image runs as %v, want a user other than root", user)
	}
	ig, err := os.ReadFile(".dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\.git$`).Match(ig) {
		t.Error(".dockerignore keeps .git in the context")
	}
}
