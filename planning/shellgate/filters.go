package shellgate

import (
	"fmt"
	"strings"
)

// Checkers for the text and file utilities that write only with some
// options.

func checkSort(args []arg) string {
	if r := literalOptions("sort", args); r != "" {
		return r
	}
	for i := 0; i < len(args); i++ {
		a := args[i].value
		switch {
		case a == "--":
			return ""
		case longOpt(a, "--output", "--compress-program", "--temporary-directory"):
			return "sort --output/--compress-program/--temporary-directory writes files or runs a program; let sort print to stdout"
		case longOpt(a, "--files0-from"):
			return "sort --files0-from " + namesFromInput
		case strings.HasPrefix(a, "--") || a == "-" || !strings.HasPrefix(a, "-"):
			continue
		}
		for j := 1; j < len(a); j++ {
			switch c := a[j]; {
			case c == 'o' || c == 'T':
				return "sort -o writes its output to a file and sort -T its temporary files; let sort print to stdout"
			case strings.IndexByte("ktS", c) >= 0:
				if j == len(a)-1 {
					i++ // the option's value is the next argument
				}
				j = len(a)
			case strings.IndexByte("bdfgiMhnRrVcCsuz", c) < 0:
				return fmt.Sprintf("sort option -%c is not allowed in Plan Mode", c)
			}
		}
	}
	return ""
}

// checkUniq allows at most one operand, after every option: uniq writes a
// second operand, and an option word after an operand is an operand too
// when POSIXLY_CORRECT is set.
func checkUniq(args []arg) string {
	const output = "uniq INPUT OUTPUT writes OUTPUT; give uniq its options first and at most one file, and read its stdout"
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "uniq arguments must be literal in Plan Mode (a second operand is an output file uniq would overwrite)"
		}
		v := a.value
		switch {
		case v == "--":
			if len(args)-i-1 > 1 {
				return output
			}
			return ""
		case v == "-" || !strings.HasPrefix(v, "-"):
			if i+1 < len(args) {
				return output
			}
			return ""
		case strings.HasPrefix(v, "--"):
			switch {
			case longOpt(v, "--skip-fields", "--skip-chars", "--check-chars"):
				if !strings.Contains(v, "=") {
					i++
				}
			case !longOpt(v, "--count", "--repeated", "--all-repeated", "--ignore-case", "--unique",
				"--zero-terminated", "--group", "--help", "--version"):
				return fmt.Sprintf("the uniq option %s is not allowed in Plan Mode", v)
			}
		default:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte("fsw", c) >= 0 {
					if j == len(v)-1 {
						i++
					}
					break
				}
				if strings.IndexByte("cdDiuz", c) < 0 {
					return fmt.Sprintf("the uniq option -%c is not allowed in Plan Mode", c)
				}
			}
		}
	}
	return ""
}

func checkTree(args []arg) string {
	if r := literalOptions("tree", args); r != "" {
		return r
	}
	for _, a := range args {
		v := a.value
		if v == "--" {
			break
		}
		if longOpt(v, "--output") || (isCluster(v) && strings.ContainsAny(v, "oR")) {
			return "tree -o writes a file and tree -R writes 00Tree.html files; use tree without them"
		}
		if longOpt(v, "--fromfile") {
			return "tree --fromfile " + namesFromInput
		}
	}
	return ""
}

func checkFile(args []arg) string {
	if r := literalOptions("file", args); r != "" {
		return r
	}
	for _, a := range args {
		v := a.value
		if v == "--" {
			break
		}
		if longOpt(v, "--compile") || (isCluster(v) && strings.Contains(v, "C")) {
			return "file -C compiles a magic file and writes it to disk; use file without -C"
		}
		if longOpt(v, "--files-from") || (isCluster(v) && strings.Contains(v, "f")) {
			return "file -f " + namesFromInput
		}
	}
	return ""
}

func checkRg(args []arg) string {
	if r := literalOptions("rg", args); r != "" {
		return r
	}
	for _, a := range args {
		v := a.value
		if v == "--" {
			break
		}
		name, _, _ := strings.Cut(v, "=") // rg takes no abbreviations
		if name == "--pre" {
			return "rg --pre runs a preprocessor command on every file; search without it"
		}
		if name == "--hostname-bin" {
			return "rg --hostname-bin runs a program; search without it"
		}
	}
	return ""
}
