package deploy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/eclipse-atesor/atesor-go/batch"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// objects decodes a multi-document manifest strictly (an unknown or misplaced field is
// an error) into the Kubernetes API type of each document's kind.
func objects(t *testing.T, file string) []any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%s document %d: %v", file, i, err)
		}
		var obj any
		switch meta.APIVersion + "/" + meta.Kind {
		case "batch/v1/Job":
			obj = &batchv1.Job{}
		case "v1/ConfigMap":
			obj = &corev1.ConfigMap{}
		case "v1/PersistentVolumeClaim":
			obj = &corev1.PersistentVolumeClaim{}
		default:
			t.Fatalf("%s document %d: unexpected %s %s", file, i, meta.APIVersion, meta.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s document %d (%s): %v", file, i, meta.Kind, err)
		}
		out = append(out, obj)
	}
	return out
}

func envOf(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func mountOf(c corev1.Container, path string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

func volumeOf(spec corev1.PodSpec, name string) (corev1.Volume, bool) {
	for _, v := range spec.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return corev1.Volume{}, false
}

func TestKubernetesBatchJob(t *testing.T) {
	objs := objects(t, filepath.Join("kubernetes", "batch-job.yaml"))
	var job *batchv1.Job
	var list *corev1.ConfigMap
	var pvc *corev1.PersistentVolumeClaim
	for _, o := range objs {
		switch o := o.(type) {
		case *batchv1.Job:
			job = o
		case *corev1.ConfigMap:
			list = o
		case *corev1.PersistentVolumeClaim:
			pvc = o
		}
	}
	if job == nil || list == nil || pvc == nil {
		t.Fatalf("want a Job, a ConfigMap and a PersistentVolumeClaim, got %d objects", len(objs))
	}
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("the Job is not an Indexed Job: pods get no JOB_COMPLETION_INDEX")
	}
	if job.Spec.Completions == nil || job.Spec.Parallelism == nil {
		t.Fatal("the Job sets no completions or parallelism")
	}
	spec := job.Spec.Template.Spec
	if spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: an Indexed Job with backoffLimitPerIndex needs Never", spec.RestartPolicy)
	}
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	shards, ok := envOf(c, batch.EnvShards)
	if n, err := strconv.Atoi(shards); !ok || err != nil || int32(n) != *job.Spec.Completions {
		t.Errorf("%s=%q, but the Job has %d completions: the shards would not cover the list", batch.EnvShards, shards, *job.Spec.Completions)
	}
	if home, _ := envOf(c, "ATESOR_HOME"); home != "/state" {
		t.Errorf("ATESOR_HOME=%q, want /state", home)
	}
	cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
	for _, want := range []string{"atesor batch", "--list /config/list.txt", "/out/shard-${" + batch.EnvJobIndex + "}"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("the worker command %q lacks %q", cmd, want)
		}
	}
	if strings.Contains(cmd, "--shard") {
		t.Error("the worker passes --shard: the shard must come from JOB_COMPLETION_INDEX")
	}
	if c.SecurityContext == nil || c.SecurityContext.Privileged == nil || !*c.SecurityContext.Privileged {
		t.Error("the worker is not privileged: the sandbox cannot mount overlays or register binfmt_misc")
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		t.Error("the worker requests no CPU")
	}
	for path, check := range map[string]func(corev1.Volume) bool{
		"/state": func(v corev1.Volume) bool { return v.EmptyDir != nil },
		"/out": func(v corev1.Volume) bool {
			return v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == pvc.Name
		},
		"/config": func(v corev1.Volume) bool { return v.ConfigMap != nil && v.ConfigMap.Name == list.Name },
	} {
		m, ok := mountOf(c, path)
		if !ok {
			t.Errorf("nothing is mounted at %s", path)
			continue
		}
		if v, ok := volumeOf(spec, m.Name); !ok || !check(v) {
			t.Errorf("the volume at %s (%s) is not the right kind or object: %+v", path, m.Name, v)
		}
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Error("the output volume is not ReadWriteMany: the shards and the merge job share it")
	}
	items, err := batch.ParseList(strings.NewReader(list.Data["list.txt"]))
	if err != nil || len(items) < int(*job.Spec.Completions) {
		t.Errorf("the list in the ConfigMap: %d items, %v", len(items), err)
	}
}

func TestKubernetesMergeJob(t *testing.T) {
	objs := objects(t, filepath.Join("kubernetes", "merge-job.yaml"))
	if len(objs) != 1 {
		t.Fatalf("%d objects", len(objs))
	}
	job, ok := objs[0].(*batchv1.Job)
	if !ok {
		t.Fatalf("%T", objs[0])
	}
	c := job.Spec.Template.Spec.Containers[0]
	cmd := strings.Join(append(slices.Clone(c.Command), c.Args...), " ")
	if !strings.Contains(cmd, "atesor merge --out /out/merged /out/shard-*") {
		t.Errorf("merge command %q", cmd)
	}
	m, ok := mountOf(c, "/out")
	if v, vok := volumeOf(job.Spec.Template.Spec, m.Name); !ok || !vok || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "atesor-batch-out" {
		t.Error("the merge job does not mount the batch's output volume at /out")
	}
}

// workflow is the part of a GitHub Actions workflow the test checks.
type workflow struct {
	Name string                 `json:"name"`
	On   map[string]any         `json:"on"`
	Env  map[string]string      `json:"env"`
	Jobs map[string]workflowJob `json:"jobs"`
}

type workflowJob struct {
	RunsOn   string `json:"runs-on"`
	Needs    any    `json:"needs"`
	If       string `json:"if"`
	Strategy struct {
		FailFast *bool          `json:"fail-fast"`
		Matrix   map[string]any `json:"matrix"`
	} `json:"strategy"`
	Steps []struct {
		Name string            `json:"name"`
		Uses string            `json:"uses"`
		Run  string            `json:"run"`
		If   string            `json:"if"`
		With map[string]string `json:"with"`
	} `json:"steps"`
}

func TestGitHubActionsWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("github-actions", "atesor-batch.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.1 reads a bare "on" key as true; GitHub reads it as "on".
	data = regexp.MustCompile(`(?m)^on:`).ReplaceAll(data, []byte(`"on":`))
	var wf workflow
	// Fields of the workflow schema beyond those checked here are fine.
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("the workflow does not parse: %v", err)
	}
	if _, ok := wf.On["workflow_dispatch"]; !ok {
		t.Error("the workflow cannot be started by hand (workflow_dispatch)")
	}
	shard, ok := wf.Jobs["shard"]
	if !ok {
		t.Fatal("no shard job")
	}
	matrix, _ := shard.Strategy.Matrix["shard"].([]any)
	n, err := strconv.Atoi(wf.Env["SHARDS"])
	if err != nil || len(matrix) != n {
		t.Fatalf("the matrix has %d shards, SHARDS is %q", len(matrix), wf.Env["SHARDS"])
	}
	for i, v := range matrix {
		if fmt.Sprint(v) != strconv.Itoa(i) {
			t.Errorf("matrix shard %d is %v: want 0..N-1", i, v)
		}
	}
	if shard.Strategy.FailFast == nil || *shard.Strategy.FailFast {
		t.Error("fail-fast is not off: one failing shard would cancel the others")
	}
	var run, upload bool
	for _, s := range shard.Steps {
		if strings.Contains(s.Run, "batch") && strings.Contains(s.Run, `--shard "${{ matrix.shard }}/$SHARDS"`) &&
			strings.Contains(s.Run, `--out "out/shard-${{ matrix.shard }}"`) {
			run = true
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && s.If == "always()" &&
			s.With["name"] == "shard-${{ matrix.shard }}" && s.With["path"] == "out/shard-${{ matrix.shard }}" {
			upload = true
		}
	}
	if !run || !upload {
		t.Errorf("the shard job: runs its shard %v, uploads its output always %v", run, upload)
	}
	merge, ok := wf.Jobs["merge"]
	if !ok {
		t.Fatal("no merge job")
	}
	if fmt.Sprint(merge.Needs) != "shard" || merge.If != "always()" {
		t.Errorf("the merge job needs %v if %q: want shard, always()", merge.Needs, merge.If)
	}
	var download, merged bool
	for _, s := range merge.Steps {
		if strings.HasPrefix(s.Uses, "actions/download-artifact@") && s.With["pattern"] == "shard-*" && s.With["path"] == "shards" {
			download = true
		}
		if strings.Contains(s.Run, "atesor merge --out merged shards/shard-*") {
			merged = true
		}
	}
	if !download || !merged {
		t.Errorf("the merge job: downloads the shards %v, merges them %v", download, merged)
	}
}

// TestDockerfile checks the worker image: a Debian trixie base, every host tool package
// the sandbox needs, and atesor as the entry point.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(text, -1)
	if len(froms) == 0 || !strings.HasPrefix(froms[len(froms)-1][1], "debian:trixie") {
		t.Errorf("the final stage is %v, want debian:trixie", froms)
	}
	install := regexp.MustCompile(`(?s)apt-get install(.*?)&&`).FindStringSubmatch(text)
	if install == nil {
		t.Fatal("the Dockerfile installs no packages")
	}
	pkgs := strings.Fields(strings.ReplaceAll(install[1], "\\", " "))
	for _, platform := range []string{"debian", "alpine"} {
		p, err := knowledge.Profile(platform)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range sandbox.AptPackages(sandbox.HostTools(p)) {
			if !slices.Contains(pkgs, pkg) {
				t.Errorf("the image lacks %s, a host tool package of the %s sandbox", pkg, platform)
			}
		}
	}
	if !bytes.Contains(data, []byte(`ENTRYPOINT ["atesor"]`)) || !strings.Contains(text, "go build") {
		t.Error("the image does not build atesor and run it as its entry point")
	}
}

// TestDockerfileRuntimeTools checks that the image's runtime stage (what the worker
// runs, not the build stage) carries the tools a port can need beyond the sandbox's:
// the go command (a go.mod that needs a newer Go fetches it through the host's go),
// qemu-user and gcc with the C library headers (performance mode counts instructions
// with a plugin that gcc builds for the dynamic qemu-riscv64).
func TestDockerfileRuntimeTools(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	runtime := runtimeStage(t, string(data))
	var pkgs []string
	for _, m := range regexp.MustCompile(`(?s)apt-get install((?:[^&]|&[^&])*)`).FindAllStringSubmatch(runtime, -1) {
		for _, f := range strings.Fields(strings.ReplaceAll(m[1], "\\", " ")) {
			if !strings.HasPrefix(f, "-") {
				pkgs = append(pkgs, f)
			}
		}
	}
	for _, want := range []string{"qemu-user", "gcc", "libc6-dev"} {
		if !slices.Contains(pkgs, want) {
			t.Errorf("the runtime stage does not install %s (installs %v)", want, pkgs)
		}
	}
	if !regexp.MustCompile(`(?m)^RUN apt-get update[^\n]*(\\\n[^\n]*)*--no-install-recommends`).MatchString(runtime) {
		t.Error("the runtime stage installs recommends: qemu-user's would take the riscv64 binfmt entry from qemu-user-static")
	}
	// The go command: copied from the build stage's Go and put on PATH.
	goroot := regexp.MustCompile(`(?m)^COPY\s+--from=build\s+(\S+/go)\s+(\S+)\s*$`).FindStringSubmatch(runtime)
	if goroot == nil {
		t.Fatal("the runtime stage has no go command (no COPY --from=build of a Go installation)")
	}
	path := regexp.MustCompile(`(?m)^ENV\s+PATH=(\S+)`).FindStringSubmatch(runtime)
	if path == nil || !slices.Contains(strings.Split(path[1], ":"), goroot[2]+"/bin") {
		t.Errorf("the go command in %s/bin is not on the runtime stage's PATH (%v)", goroot[2], path)
	}
}

// runtimeStage returns the Dockerfile's last stage: from its FROM line to the end.
func runtimeStage(t *testing.T, dockerfile string) string {
	t.Helper()
	locs := regexp.MustCompile(`(?m)^FROM\s`).FindAllStringIndex(dockerfile, -1)
	if len(locs) < 2 {
		t.Fatalf("the Dockerfile has %d stages, want a build stage and a runtime stage", len(locs))
	}
	return dockerfile[locs[len(locs)-1][0]:]
}

// TestDockerignore checks that the build context leaves out what is not a source (the
// repository's history, build outputs, port outputs, local settings with keys) and
// keeps what the build needs.
func TestDockerignore(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".dockerignore"))
	if err != nil {
		t.Fatalf("no .dockerignore at the repository's root: %v", err)
	}
	var patterns []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, strings.TrimPrefix(l, "/"))
		}
	}
	for _, want := range []string{".git", "atesor", "*.test", "atesor-out", "port", "trace", ".env"} {
		if !slices.Contains(patterns, want) {
			t.Errorf(".dockerignore does not leave out %s (patterns %v)", want, patterns)
		}
	}
	for _, keep := range []string{"go.mod", "go.sum", "cmd", "memory", "graph", "*.go"} {
		if slices.Contains(patterns, keep) {
			t.Errorf(".dockerignore leaves out %s, which the build needs", keep)
		}
	}
}
