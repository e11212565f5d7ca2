package verify

import "testing"

func TestIsStub(t *testing.T) {
	for _, tt := range []struct {
		path, content string
		isNew, want   bool
	}{
		{"src/main.c", "int main(void) { return 0; }\n", true, true},
		{"src/main.c", "int main(void) { return 0; }\n", false, false}, // an edit of the real program
		{"cmd/x/main.go", "package main\n\nfunc main() {}\n", true, true},
		{"src/util.c", "int add(int a, int b) { return a + b; }\n", true, false},
		{"Makefile", "all:\n\ttrue\n", false, true},
		{"Makefile", "all:\n\t$(CC) -o x x.c\n", false, false},
		{"CMakeLists.txt", "add_library(z z.c)\n", false, false},
		{"README.md", "int main(void) {}\n", true, false},
	} {
		if got := IsStub(tt.path, tt.content, tt.isNew); got != tt.want {
			t.Errorf("IsStub(%q, %q, %v) = %v, want %v", tt.path, tt.content, tt.isNew, got, tt.want)
		}
	}
}
