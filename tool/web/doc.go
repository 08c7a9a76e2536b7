// Package web holds the web_fetch and web_search tools.
//
// web_fetch GETs an http(s) URL and returns HTML as markdown (main
// content via readability, converted with html-to-markdown) and other text
// as it is; binary responses are refused. Every connection passes a guard
// in the dialer that resolves the host itself, refuses loopback, private,
// link-local, CGNAT, multicast and unspecified addresses (IPv4-mapped IPv6
// included) unless allowed, and connects to the address it checked: the
// check holds across redirects and DNS rebinding. Proxies from the
// environment are not used, cookies are never kept, credentials never sent.
//
// web_search asks a Searcher and lists results. Two backends are here:
// Brave's Search API, and Anthropic's server-side web search tool run by
// one small Messages request per search (see Anthropic), so that the tool
// stays harness9's own whatever the session's model is.
//
// The package reads no environment variables and writes no files; the
// caller configures it.
package web
