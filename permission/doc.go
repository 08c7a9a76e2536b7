// Package permission decides whether a tool call may run, must be put to
// the user, or is refused, from rules the user writes.
//
// A rule is a tool name, optionally narrowed by a specifier in
// parentheses:
//
//	bash                    every bash call
//	bash(git diff:*)        bash lines whose every simple command starts with "git diff"
//	bash(npm test)          bash lines whose every simple command is exactly "npm test"
//	edit_file(src/**)       calls whose path matches the glob (relative to the workdir)
//	mcp__github__*          every tool of the MCP server "github"
//	web_fetch(domain:go.dev) calls whose URL's host is go.dev or a subdomain of it
//
// Rules come in three lists, allow, ask and deny, from several sources (the
// user's config, a project's config, answers the user gave, command-line
// flags). The strongest matching list wins: deny over ask over allow; when
// no rule matches, the caller's default for the mode applies.
//
// The package knows nothing about tools' input formats: the caller
// describes a call by what it acts on (Call: a shell command line, a path, a
// URL), which tools report about themselves.
package permission
