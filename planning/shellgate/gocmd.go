package shellgate

import (
	"fmt"
	"strings"
)

// goSafeEnv are the go env variables Plan Mode may print; GOPROXY, GOAUTH
// and GOSUMDB can carry credentials.
var goSafeEnv = setOf("GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOOS", "GOARCH", "GOVERSION",
	"GOMOD", "GOWORK", "GOFLAGS", "GOTOOLCHAIN", "CGO_ENABLED", "GOEXPERIMENT", "GOHOSTOS",
	"GOHOSTARCH", "GOENV", "GOTOOLDIR", "GOBIN", "GOEXE", "GOARM", "GOAMD64", "GOARM64",
	"GO111MODULE", "GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOINSECURE", "GODEBUG", "GOTELEMETRY")

// goFlags are the flags each allowed go subcommand may take, mapped to
// whether the flag takes a value. Everything else is refused: build flags
// such as -toolexec, -exec, -modfile or -overlay run programs or read files
// the gate cannot check, -export and -compiled make go list compile.
var goFlags = map[string]map[string]bool{
	"list": {"e": false, "f": true, "json": false, "m": false, "u": false, "versions": false,
		"retracted": false, "deps": false, "test": false, "find": false, "tags": true, "mod": true,
		"buildvcs": false, "trimpath": false, "race": false, "x": false, "n": false, "v": false},
	"doc":     {"all": false, "c": false, "cmd": false, "short": false, "src": false, "u": false},
	"version": {"m": false, "v": false, "json": false},
	"env":     {"json": false},
	"help":    {},
}

// checkGo allows the go subcommands that only read: list, doc, version, env
// (named non-secret variables) and help. go vet, build and test compile the
// repository's code — running the C compiler on cgo files and writing the
// build cache — which belongs to carrying out a plan, not to exploring.
func checkGo(args []arg) string {
	if r := literalOptions("go", args); r != "" {
		return r
	}
	i := 0
	if len(args) > 0 {
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(args[0].value, "-"), "-"), "=")
		if strings.HasPrefix(args[0].value, "-") && name == "C" {
			i = 2
			if hasValue {
				i = 1
			}
		}
	}
	if i >= len(args) {
		return ""
	}
	sub, rest := args[i].value, args[i+1:]
	flags, ok := goFlags[sub]
	if !ok {
		return fmt.Sprintf("go %s compiles, runs or changes code, which is not needed to explore; Plan Mode allows go list, go doc, go version, go env NAME and go help", sub)
	}
	n := 0
	for ; n < len(rest); n++ {
		v := rest[n].value
		if v == "--" {
			n++
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			break // go's flag parsing stops at the first operand
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-"), "=")
		takesValue, known := flags[name]
		switch {
		case sub == "env" && (name == "w" || name == "u"):
			return "go env -w/-u change the go environment file; Plan Mode only reads it"
		case name == "mod" && hasValue && value == "mod", name == "mod" && !hasValue && n+1 < len(rest) && rest[n+1].value == "mod":
			return "go list -mod=mod may rewrite go.mod and go.sum; leave it out"
		case !known:
			return fmt.Sprintf("the go %s flag -%s is not allowed in Plan Mode", sub, name)
		case takesValue && !hasValue:
			n++
		}
	}
	if sub == "env" {
		names := rest[n:]
		if len(names) == 0 {
			return "go env without names " + printsEnvironment + " (GOPROXY and GOAUTH can hold credentials); name the variables: go env GOPATH GOMOD"
		}
		for _, a := range names {
			if !goSafeEnv[a.value] {
				return fmt.Sprintf("go env %s may print a credential; Plan Mode prints only variables such as GOPATH, GOROOT, GOMOD, GOFLAGS or GOVERSION", a.value)
			}
		}
	}
	return ""
}
