// Package lib documents the module's layering; the packages below it are
// the library's private helpers.
//
// The module has two layers. The library is every package outside
// internal/, cmd/ and scripts/ (agent, tool, planning, session, harness,
// service …): other Go programs import it. The app is the harness9 program:
// cmd/harness9 and the rest of internal/ (cli, tui, config, acp, trust …).
// The app may import anything; the library imports nothing of the app.
// Helpers the library shares but does not publish (the atomic writer, the
// gitignore rules, git's guarded files, the planning driver, test helpers)
// live below internal/lib, which imports nothing of the app either. Programs
// under examples/ are written as a user would write them: they import no
// internal package at all.
//
// layering_test.go checks every Go file, tests and every build tag
// included.
package lib
