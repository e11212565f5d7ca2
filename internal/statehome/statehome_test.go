package statehome

import (
	"errors"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name, atesorHome, xdg, home, want string
		err                               error
	}{
		{name: "ATESOR_HOME wins", atesorHome: "/a", xdg: "/x", home: "/h", want: "/a"},
		{name: "XDG_DATA_HOME next", xdg: "/x", home: "/h", want: "/x/atesor-ai"},
		{name: "home directory last", home: "/h", want: "/h/.local/share/atesor-ai"},
		{name: "nothing set", err: ErrNoHome},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"ATESOR_HOME": tc.atesorHome, "XDG_DATA_HOME": tc.xdg, "HOME": tc.home}
			got, err := Find(func(k string) string { return env[k] })
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Errorf("Find = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
}
