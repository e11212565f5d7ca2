package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// A distribution's Go source often requires, in its go.mod, module versions the module
// proxy no longer serves (a pseudo-version of a rewritten branch: "403 Forbidden, This
// module version is not available"), or the sandbox has no network for them. Debian
// never fetches them: dh-golang builds the source in GOPATH mode, which ignores go.mod,
// against the golang-*-dev packages its Build-Depends install under /usr/share/gocode.
// The go-module-gopath rule switches such a build to that plan (knowledge's
// GoModulePathPlan, the GOPATH build of sources with no go.mod). A source shipped
// without go.sum (or with one that lacks the entries go.mod's requirements need) stops
// the same way offline: the go command will not use a module it cannot check against
// go.sum, and adding the entries means fetching the modules; the packaged sources need
// no checksum.

const goModuleGoPathRuleName = "go-module-gopath"

// goModuleFetch is the go command failing to get a module version: group 1 is the
// module path. The proxy refuses it (403, 404, 410), the version or revision does not
// exist, or there is no network or proxy.
var goModuleFetch = re(`(?m)(?:^|\s)(?:go: |verifying )?([a-z0-9][A-Za-z0-9._~/+-]*\.[A-Za-z0-9._~/+-]*)@v[0-9][A-Za-z0-9.+-]*: .*?` +
	`(?:reading https?://\S+: (?:403 Forbidden|404 Not Found|410 Gone)|unknown revision|invalid version|not found|` +
	`dial tcp|no such host|network is unreachable|connection refused|i/o timeout|module lookup disabled by GOPROXY=off)`)

// goSumMissing is the go command refusing a module go.sum has no entry for: group 1 is
// the package that module provides (a build's "missing go.sum entry for module providing
// package golang.org/x/crypto/hkdf"), group 2 the module path of the go.mod check ("go:
// example.com/a@v1.2.3: missing go.sum entry for go.mod file").
var goSumMissing = re(`(?m)(?:^\S+: )?missing go\.sum entry for module providing package ([a-z0-9][A-Za-z0-9._~/+-]*\.[A-Za-z0-9._~/+-]*)|` +
	`(?:^|\s)(?:go: |verifying )?([a-z0-9][A-Za-z0-9._~/+-]*\.[A-Za-z0-9._~/+-]*)@v[0-9][A-Za-z0-9.+-]*: missing go\.sum entry`)

func goModuleGoPathRule() Rule {
	return Rule{
		Name: goModuleGoPathRuleName,
		Doc: "a Go module build that cannot fetch a module version go.mod requires (the proxy's 403 for obs-cli's goobs pseudo-version), " +
			"or cannot use one because go.sum lacks its entry (go-hpke-compact's tarball has no go.sum), " +
			"of a distribution source whose Build-Depends are golang-*-dev packages installing that module: the GOPATH build " +
			"over /usr/share/gocode that Debian's dh-golang does, with those packages installed",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryConfiguration, atesor.CategoryCompilation,
			atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{goModuleFetch, goSumMissing},
		Packaged:   true,
		Make:       makeGoModuleGoPath,
	}
}

// goSumMissingPaths are the import paths of the modules (or of packages they provide)
// go.sum lacks an entry for in text, in order, each once.
func goSumMissingPaths(text string) []string {
	var out []string
	for _, m := range goSumMissing.FindAllStringSubmatch(text, 32) {
		p, check := m[1], module.CheckImportPath
		if p == "" {
			p, check = m[2], module.CheckPath
		}
		if check(p) == nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// fetchFailedModules are the module paths of the go command's fetch failures in text,
// in order, each once.
func fetchFailedModules(text string) []string {
	var out []string
	for _, m := range goModuleFetch.FindAllStringSubmatch(text, 32) {
		if module.CheckPath(m[1]) == nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func makeGoModuleGoPath(ctx context.Context, f Failure, env Env) (*Fix, string) {
	det := env.Detection
	switch {
	case env.Plan == nil:
		return nil, "no build plan"
	case det == nil || det.BuildSystem != atesor.BuildGo:
		return nil, "the build is no Go build"
	case env.Distribution == nil:
		return nil, "the source has no counterpart in the distribution"
	}
	if _, ok := knowledge.GoPathImportPath(env.Plan); ok {
		return nil, "the plan already builds in GOPATH mode"
	}
	text := f.text() + "\n" + f.Message
	mods := fetchFailedModules(text)
	why := "the go command could not fetch " + strings.Join(mods, ", ")
	if len(mods) == 0 {
		// No fetch failed: the modules are those of go.sum's missing entries (the go
		// command checks go.sum before it would fetch anything).
		mods = goSumMissingPaths(text)
		why = "go.sum has no entry for the modules of " + strings.Join(mods, ", ") + ", and adding them would fetch those modules"
	}
	if len(mods) == 0 {
		return nil, "the output names no module the go command could not fetch or find in go.sum"
	}
	d, unread := readDistribution(ctx, env)
	if d == nil {
		return nil, unread
	}
	devs := knowledge.GoDevPackages(d.installable())
	if len(devs) == 0 {
		return nil, fmt.Sprintf("%s %s has no golang-*-dev Build-Depends: the distribution does not build it over packaged Go sources", d.Package, d.Version)
	}
	if env.GoPackage == nil {
		return nil, "the distribution's source index is not available to tell which package installs " + strings.Join(mods, ", ")
	}
	var provided []string
	for _, m := range mods {
		pkg, _, err := env.GoPackage(ctx, m)
		switch {
		case err != nil:
			return nil, fmt.Sprintf("the package of %s could not be looked up: %v", m, err)
		case pkg == "":
			return nil, "no distribution package installs the sources of " + m
		case !slices.Contains(devs, pkg):
			return nil, fmt.Sprintf("%s installs %s, and the Build-Depends of %s %s do not name it", pkg, m, d.Package, d.Version)
		}
		provided = append(provided, m+" ("+pkg+")")
	}
	imp, from := goModuleImportPath(ctx, env, d)
	if imp == "" {
		return nil, "neither the distribution's Go-Import-Path nor go.mod names the import path to build the source under"
	}
	var plan atesor.BuildPlan
	var err error
	if det.GoNoModFile {
		// A tree that got a go.mod from an earlier fix (go mod init): the GOPATH build of
		// sources with no go.mod, with that fix's go.mod left unread.
		plan, _, err = knowledge.GoPathPlan(det, env.Platform, devs)
	} else {
		plan, _, err = knowledge.GoModulePathPlan(det, env.Platform, devs, imp, why)
	}
	if err != nil {
		return nil, err.Error()
	}
	return &Fix{
		Analysis: fmt.Sprintf("The module build stops because %s (%s). Debian builds %s %s in GOPATH mode (dh-golang), "+
			"which ignores go.mod, against the sources its golang-*-dev Build-Depends install under %s/src: %s among them. "+
			"The source is built the same way, under the import path %s (%s).",
			why, excerpt.FirstLine(firstMatchOf(f.text(), []*regexp.Regexp{goModuleFetch, goSumMissing})), d.Package, d.Version, knowledge.DistGoPath,
			strings.Join(provided, ", "), imp, from),
		Strategy: "GOPATH build (GO111MODULE=off) at " + knowledge.GoPathDir + "/src/" + imp + " over " + knowledge.DistGoPath +
			", installing " + strings.Join(devs, " "),
		Plan: &plan,
	}, ""
}

// readDistribution is how the distribution builds the source (env.Distribution), or nil
// and why not.
func readDistribution(ctx context.Context, env Env) (*Distribution, string) {
	if env.Distribution == nil {
		return nil, "the source has no counterpart in the distribution"
	}
	d, err := env.Distribution(ctx)
	if err != nil {
		return nil, "the distribution's packaging could not be read: " + err.Error()
	}
	if d == nil {
		return nil, "the source has no counterpart in the distribution"
	}
	return d, ""
}

// goModuleImportPath is the import path a module source is built under in GOPATH mode:
// the distribution's Go-Import-Path (dh-golang's DH_GOPKG), else go.mod's module path.
func goModuleImportPath(ctx context.Context, env Env, d *Distribution) (imp, from string) {
	if module.CheckImportPath(d.GoImportPath) == nil {
		return d.GoImportPath, fmt.Sprintf("the Go-Import-Path of %s %s", d.Package, d.Version)
	}
	if env.ReadFile == nil {
		return "", ""
	}
	dir := "."
	if env.Detection.ModuleDir != "" {
		dir = env.Detection.ModuleDir
	}
	b, err := env.ReadFile(ctx, path.Join(dir, "go.mod"))
	if err != nil {
		return "", ""
	}
	if mod := modfile.ModulePath(b); module.CheckImportPath(mod) == nil {
		return mod, "go.mod's module path"
	}
	return "", ""
}
