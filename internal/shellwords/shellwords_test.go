package shellwords

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		line  string
		names []string
		words [][]string // static values, "?" for a word that is not static
	}{
		{"apt-get install -y zlib1g-dev", []string{"apt-get"}, [][]string{{"apt-get", "install", "-y", "zlib1g-dev"}}},
		{"make && sudo -E apt-get install x | tee log", []string{"make", "apt-get", "tee"}, [][]string{{"make"}, {"sudo", "-E", "apt-get", "install", "x"}, {"tee", "log"}}},
		{"A=1 env B=2 -i /usr/bin/apk add 'x y' \"z\"", []string{"apk"}, [][]string{{"env", "B=2", "-i", "/usr/bin/apk", "add", "x y", "z"}}},
		{"echo $(dpkg -l) $HOME *.c {a,b}", []string{"echo", "dpkg"}, [][]string{{"echo", "?", "?", "?", "?"}, {"dpkg", "-l"}}},
		{"( cd x; apt install y ) # apt-get install z", []string{"cd", "apt"}, [][]string{{"cd", "x"}, {"apt", "install", "y"}}},
		{"$PM install x", []string{""}, [][]string{{"?", "install", "x"}}},
	}
	for _, tt := range tests {
		f, err := Parse(tt.line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.line, err)
		}
		var names []string
		var words [][]string
		for _, c := range Commands(f) {
			names = append(names, c.Name())
			var ws []string
			for _, w := range c.Words {
				v := w.Value
				if !w.Static {
					v = "?"
				}
				ws = append(ws, v)
				if w.Plain && tt.line[w.Start:w.End] != w.Value {
					t.Errorf("%q: plain word %q spans %q", tt.line, w.Value, tt.line[w.Start:w.End])
				}
			}
			words = append(words, ws)
		}
		if d := cmp.Diff(tt.names, names); d != "" {
			t.Errorf("%q: programs (-want +got):\n%s", tt.line, d)
		}
		if d := cmp.Diff(tt.words, words); d != "" {
			t.Errorf("%q: words (-want +got):\n%s", tt.line, d)
		}
	}
	if _, err := Parse("echo 'unclosed"); err == nil {
		t.Error("an unclosed quote parsed")
	}
}

func TestApply(t *testing.T) {
	line := "apt-get install a b c"
	got := Apply(line, []Replacement{{Start: 20, End: 21, Text: "C"}, {Start: 16, End: 17, Text: "AA"}, {Start: 17, End: 16, Text: "bad"}, {Start: 18, End: 99, Text: "bad"}})
	if got != "apt-get install AA b C" {
		t.Errorf("Apply = %q", got)
	}
	if Apply(line, nil) != line {
		t.Error("Apply without replacements changed the line")
	}
}

// FuzzCommands: any line parses or fails without a panic; every plain word's span
// holds exactly its value, spans lie inside the line and do not overlap, and replacing
// every plain word by itself gives the line back.
func FuzzCommands(f *testing.F) {
	for _, s := range []string{"apt-get install -y x", "a && b | c; (d) $(e f) `g`", "x='a b' y \"$z\" \\\nw", "cat <<E\nx\nE\n", "{a,b} ${x:-y} $((1+2))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		file, err := Parse(line)
		if err != nil {
			return
		}
		var reps []Replacement
		last := -1
		for _, c := range Commands(file) {
			c.Program()
			for _, w := range c.Words {
				if w.Start < 0 || w.End > len(line) || w.Start > w.End {
					t.Fatalf("%q: word span [%d,%d) outside the line", line, w.Start, w.End)
				}
				if w.Plain {
					if line[w.Start:w.End] != w.Value {
						t.Fatalf("%q: plain word %q spans %q", line, w.Value, line[w.Start:w.End])
					}
					if w.Start < last {
						continue // a word inside a command substitution of an earlier word
					}
					last = w.End
					reps = append(reps, Replacement{Start: w.Start, End: w.End, Text: w.Value})
				}
			}
		}
		if got := Apply(line, reps); got != line {
			t.Fatalf("replacing plain words by themselves changed %q into %q", line, got)
		}
	})
}

func TestCommandValues(t *testing.T) {
	line := "CFLAGS='-g -O2 -fpermissive' LIBS= CC=$CC ./configure"
	f, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	cs := Commands(f)
	if len(cs) != 1 {
		t.Fatalf("%d commands", len(cs))
	}
	c := cs[0]
	type val struct {
		Name, Value string
		Static      bool
	}
	var got []val
	for i, n := range c.Assigns {
		got = append(got, val{n, c.Values[i].Value, c.Values[i].Static})
	}
	want := []val{{"CFLAGS", "-g -O2 -fpermissive", true}, {"LIBS", "", true}, {"CC", "", false}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("assignments (-want +got):\n%s", d)
	}
	if w := c.Values[0]; line[w.Start:w.End] != "'-g -O2 -fpermissive'" {
		t.Errorf("CFLAGS's value spans %q", line[w.Start:w.End])
	}
}
