package mdtable

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		ok    bool
		want  Table
	}{
		{"table", []string{"| a | b \\| c |", "|:--|--:|", "| 1 | 2 |", "3"}, true, Table{
			Rows:  [][]string{{"a", "b | c"}, {"1", "2"}, {"3"}},
			Align: []Align{AlignLeft, AlignRight},
		}},
		{"no outer pipes, centred", []string{"a | b", ":-: | ---"}, true, Table{
			Rows:  [][]string{{"a", "b"}},
			Align: []Align{AlignCenter, AlignNone},
		}},
		{"one line", []string{"a | b"}, false, Table{}},
		{"no pipe in the header", []string{"a", "---"}, false, Table{}},
		{"delimiter not dashes", []string{"a | b", "-x- | ---"}, false, Table{}},
		{"empty delimiter cell", []string{"a | b", "--- | :"}, false, Table{}},
		{"prose with pipes", []string{"use a | b here", "and c | d there"}, false, Table{}},
	} {
		got, ok := Parse(tc.lines)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Parse(%q) = %+v, %v; want %+v, %v", tc.name, tc.lines, got, ok, tc.want, tc.ok)
		}
	}
}
