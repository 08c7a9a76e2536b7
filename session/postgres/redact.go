package postgres

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// redacted stands in for a password.
const redacted = "xxxxx"

// kvPassword matches password=… in a key=value connection string, quoted
// or not.
// Compiled on first use: every process start would pay for it at init.
var kvPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
})

// Redact returns dsn with its password, whether in the URL's user part, in
// a password query parameter or in a key=value string, replaced by
// "xxxxx", for messages and reports. A string that does not parse is
// redacted by pattern.
func Redact(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), redacted)
			}
			q := u.Query()
			if q.Has("password") {
				q.Set("password", redacted)
				u.RawQuery = q.Encode()
			}
			return u.String()
		}
		// An unparsable URL: drop everything between the scheme and '@'.
		scheme, rest, _ := strings.Cut(dsn, "://")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = redacted + rest[at:]
		}
		return scheme + "://" + kvPassword().ReplaceAllString(rest, "${1}"+redacted)
	}
	return kvPassword().ReplaceAllString(dsn, "${1}"+redacted)
}

// password returns the password dsn carries, "" when none.
func password(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if p, ok := u.User.Password(); ok {
			return p
		}
		return u.Query().Get("password")
	}
	if m := kvPassword().FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[2], "'")
	}
	return ""
}

// scrubbed is an error whose message has the password taken out; Unwrap
// still reaches the original, for errors.Is and errors.As.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub makes sure err's message does not carry dsn's password, whatever
// the driver put in it.
func scrub(err error, dsn string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	pw := password(dsn)
	if pw != "" && strings.Contains(msg, pw) {
		msg = strings.ReplaceAll(msg, pw, redacted)
	}
	if pw != "" {
		if esc := url.QueryEscape(pw); esc != pw {
			msg = strings.ReplaceAll(msg, esc, redacted)
		}
		if esc := url.PathEscape(pw); esc != pw {
			msg = strings.ReplaceAll(msg, esc, redacted)
		}
	}
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}
