package shellgate

import (
	"fmt"
	"strings"
)

// checkSed allows sed as a stream printer: no -i/--in-place, no -f script
// file it cannot inspect, and scripts without the w/W (write), e (execute)
// commands or the s///w, s///e flags.
func checkSed(args []arg) string {
	if r := literalOptions("sed", args); r != "" {
		return r
	}
	var scripts []string
	haveScript := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.value
		switch {
		case v == "--":
			if !haveScript && i+1 < len(args) {
				if !args[i+1].literal() {
					return "the sed script must be literal in Plan Mode"
				}
				scripts = append(scripts, args[i+1].value)
				haveScript = true
			}
			i = len(args)
		case longOpt(v, "--in-place"):
			return "sed -i/--in-place edits files; use sed without -i to print the result (changes happen after the plan is approved)"
		case longOpt(v, "--file"):
			return "sed -f reads a script file that cannot be checked; pass the script with -e"
		case longOpt(v, "--expression"):
			_, val, hasValue := strings.Cut(v, "=")
			if !hasValue {
				i++
				if i >= len(args) {
					return ""
				}
				val = args[i].value
			}
			scripts, haveScript = append(scripts, val), true
		case longOpt(v, "--line-length"):
			if !strings.Contains(v, "=") {
				i++
			}
		case strings.HasPrefix(v, "--"):
			if !longOpt(v, "--quiet", "--silent", "--regexp-extended", "--separate", "--null-data",
				"--zero-terminated", "--follow-symlinks", "--posix", "--debug", "--sandbox", "--unbuffered",
				"--binary", "--help", "--version") {
				return fmt.Sprintf("the sed option %s is not allowed in Plan Mode", v)
			}
		case strings.HasPrefix(v, "-") && v != "-":
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case c == 'i':
					return "sed -i edits files in place; use sed without -i to print the result (changes happen after the plan is approved)"
				case c == 'f':
					return "sed -f reads a script file that cannot be checked; pass the script with -e"
				case c == 'e' || c == 'l':
					val := v[j+1:]
					if val == "" {
						i++
						if i >= len(args) {
							return ""
						}
						val = args[i].value
					}
					if c == 'e' {
						scripts, haveScript = append(scripts, val), true
					}
					j = len(v)
				case strings.IndexByte("nErsuzb", c) < 0:
					return fmt.Sprintf("the sed option -%c is not allowed in Plan Mode", c)
				}
			}
		default:
			if !haveScript {
				scripts, haveScript = append(scripts, v), true
			}
		}
	}
	for _, s := range scripts {
		if r := checkSedScript(s); r != "" {
			return r
		}
	}
	return ""
}

// checkSedScript scans a sed program. Wherever the grammar is ambiguous the
// scanner ends an argument (regex, label, file name, text) at the earliest
// point sed could, so text sed treats as an argument is at worst re-read as
// commands and refused — never the other way round.
func checkSedScript(s string) string {
	const writes = "sed scripts may not use the w/W (write file) or e (execute) commands or the s///w, s///e flags in Plan Mode; print with p instead"
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	// delimited skips a delimited regex or replacement starting after the
	// opening delimiter d, honouring backslash escapes. GNU sed does not end
	// a regex at a delimiter inside a bracket expression ([/]), other seds
	// do; a bracket expression holding the delimiter is refused.
	ambiguousBracket := false
	// bracketEnd skips a bracket expression from just after its [, the way
	// POSIX reads it ([]x], [^]x], [[:alpha:]/]). A delimiter inside one
	// makes the script ambiguous.
	bracketEnd := func(d byte) {
		if i < len(s) && s[i] == '^' {
			i++
		}
		if i < len(s) && s[i] == ']' {
			i++
		}
		for i < len(s) && s[i] != ']' {
			if s[i] == d || s[i] == '\n' {
				ambiguousBracket = true
			}
			if s[i] == '[' && i+1 < len(s) && strings.IndexByte(":.=", s[i+1]) >= 0 {
				end := strings.Index(s[i+2:], string(s[i+1])+"]")
				if end < 0 {
					i = len(s)
					return
				}
				if strings.IndexByte(s[i:i+2+end+2], d) >= 0 {
					ambiguousBracket = true
				}
				i += 2 + end + 2
				continue
			}
			i++
		}
		i++ // the ]
	}
	delimited := func(d byte) bool {
		for i < len(s) {
			c := s[i]
			i++
			switch {
			case c == '\\':
				i++
				continue
			case c == '[':
				bracketEnd(d)
				continue
			case c == '\n' && d != '\n':
				return false // sed refuses a newline in a regex
			}
			if c == d {
				return true
			}
		}
		return false
	}
	// delimitedPair skips the two parts of s/re/repl/ or y/src/dst/.
	delimitedPair := func(d byte) bool {
		if !delimited(d) {
			return false
		}
		return delimited(d)
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
		default:
			return true
		}
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return true
	}
	// Arguments end at the earliest point any sed ends them: GNU sed ends a
	// label at a blank as well as at ; (so `:a e CMD` is a label and an e
	// command), text at ; for this scan. What follows is read as commands,
	// which can only refuse more.
	textEnd := func() {
		for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			i++
		}
	}
	labelEnd := func() {
		skipSpace()
		for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
	}
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';') {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] == '#' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		if !address() {
			return "the sed script could not be checked (unterminated address)"
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !address() {
				return "the sed script could not be checked (unterminated address)"
			}
		}
		skipSpace()
		for i < len(s) && s[i] == '!' {
			i++
			skipSpace()
		}
		if i >= len(s) {
			return "the sed script could not be checked (address without a command)"
		}
		cmd := s[i]
		i++
		switch {
		case cmd == 'w' || cmd == 'W' || cmd == 'e':
			return writes
		case cmd == 's':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return "the sed script could not be checked (bad s command)"
			}
			d := s[i]
			i++
			if !delimitedPair(d) {
				return "the sed script could not be checked (unterminated s command)"
			}
			for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
			if i < len(s) && (s[i] == 'w' || s[i] == 'e') {
				return writes
			}
		case cmd == 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return "the sed script could not be checked (bad y command)"
			}
			d := s[i]
			i++
			if !delimitedPair(d) {
				return "the sed script could not be checked (unterminated y command)"
			}
		case cmd == 'r' || cmd == 'R':
			return "sed r/R read another file, which Plan Mode cannot check against the workspace; read that file with cat or read_file"
		case strings.IndexByte("aic", cmd) >= 0:
			textEnd()
		case strings.IndexByte("btT:v", cmd) >= 0:
			labelEnd()
		case strings.IndexByte("lqQL", cmd) >= 0:
			skipSpace()
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case cmd == '{':
			continue // a block's first command may follow directly
		case strings.IndexByte("}=dDgGhHnNpPxzF", cmd) >= 0:
		default:
			return fmt.Sprintf("the sed script could not be checked (unknown command %q)", cmd)
		}
		if ambiguousBracket {
			return "a sed regex with its delimiter inside [...] is read differently by different seds; escape the delimiter or choose another one"
		}
		skipSpace()
		if i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != '#' {
			return fmt.Sprintf("the sed script could not be checked (unexpected %q after a command)", s[i])
		}
	}
	return ""
}
