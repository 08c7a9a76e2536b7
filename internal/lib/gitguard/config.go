package gitguard

import (
	"strings"
)

// A setting of a git configuration file, as git names it: the section and
// the key lower-cased, the subsection as written ("remote.origin.url").
type setting struct {
	section, sub, key, value string
}

// readConfig reads the settings of a configuration file the way git does,
// tolerantly: a line it cannot read is skipped. It is used on files the
// user wrote (to find core.hooksPath and includes), never to decide that a
// file the model wrote is harmless; that is inert's job, which accepts only
// a strict subset of the syntax.
func readConfig(b []byte) []setting {
	var out []setting
	p := &configParser{b: b}
	var section, sub string
	for !p.eof() {
		p.skipSpace(true)
		switch c := p.peek(); {
		case p.eof():
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			var ok bool
			section, sub, ok = p.header()
			if !ok {
				section, sub = "", ""
				p.skipLine()
			}
		case isAlpha(c):
			key := strings.ToLower(p.name())
			value, ok := p.value()
			if ok && section != "" {
				out = append(out, setting{section: section, sub: sub, key: key, value: value})
			}
		default:
			p.skipLine()
		}
	}
	return out
}

type configParser struct {
	b []byte
	i int
}

func (p *configParser) eof() bool { return p.i >= len(p.b) }

func (p *configParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.b[p.i]
}

// skipSpace skips blanks, and line ends too when lines is set.
func (p *configParser) skipSpace(lines bool) {
	for !p.eof() {
		c := p.b[p.i]
		if c == ' ' || c == '\t' || c == '\r' || (lines && c == '\n') {
			p.i++
			continue
		}
		return
	}
}

func (p *configParser) skipLine() {
	for !p.eof() && p.b[p.i] != '\n' {
		p.i++
	}
}

// header reads "[section]", "[section "sub"]" or the old "[section.sub]".
func (p *configParser) header() (section, sub string, ok bool) {
	p.i++ // [
	start := p.i
	for !p.eof() && (isAlnum(p.b[p.i]) || p.b[p.i] == '-' || p.b[p.i] == '.') {
		p.i++
	}
	section = strings.ToLower(string(p.b[start:p.i]))
	if section == "" {
		return "", "", false
	}
	if dot := strings.IndexByte(section, '.'); dot >= 0 {
		section, sub = section[:dot], section[dot+1:]
	}
	p.skipSpace(false)
	if p.peek() == '"' {
		p.i++
		var b strings.Builder
		for !p.eof() && p.b[p.i] != '"' && p.b[p.i] != '\n' {
			if p.b[p.i] == '\\' && p.i+1 < len(p.b) {
				p.i++
			}
			b.WriteByte(p.b[p.i])
			p.i++
		}
		if p.peek() != '"' {
			return "", "", false
		}
		p.i++
		sub = b.String()
	}
	if p.peek() != ']' {
		return "", "", false
	}
	p.i++
	return section, sub, true
}

func (p *configParser) name() string {
	start := p.i
	for !p.eof() && (isAlnum(p.b[p.i]) || p.b[p.i] == '-') {
		p.i++
	}
	return string(p.b[start:p.i])
}

// value reads what follows a key: "= value", or nothing (a boolean true).
func (p *configParser) value() (string, bool) {
	p.skipSpace(false)
	switch p.peek() {
	case '\n', '#', ';', 0:
		p.skipLine()
		return "true", true
	case '=':
		p.i++
	default:
		p.skipLine()
		return "", false
	}
	p.skipSpace(false)
	var b strings.Builder
	quoted, spaces := false, 0
	for !p.eof() {
		c := p.b[p.i]
		p.i++
		switch {
		case c == '\n':
			if quoted {
				return "", false
			}
			return b.String(), true
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), true
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			spaces++
			continue
		}
		for ; spaces > 0; spaces-- {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			if p.eof() {
				return b.String(), true
			}
			e := p.b[p.i]
			p.i++
			switch e {
			case '\n':
				// a continuation line
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), !quoted
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
