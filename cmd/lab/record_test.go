package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordCommand: lab record writes a cast (and with --svg the last
// frame as an SVG) of a built-in scene or a scene file, the same bytes
// twice; it refuses, with status 2 and a message naming the trouble, an
// unknown scene, bad flags and an existing file without --overwrite,
// which it leaves as it was.
func TestRecordCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.scene")
	if err := os.WriteFile(file, []byte("name mine\ncaption two panes of gd.\npane gd --speed=30\npane gd --speed=10 lr=0.05\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dir, "taken.cast")
	if err := os.WriteFile(taken, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"record"}, args...), &out, &errb)
		return out.String(), errb.String(), code
	}
	short := []string{"--seconds", "1", "--fps", "2", "--size", "60x16"}

	t.Run("writes", func(t *testing.T) {
		cast, svg := filepath.Join(dir, "a.cast"), filepath.Join(dir, "a.svg")
		out, errs, code := rec(append([]string{"ad-forward-reverse", "--out", cast, "--svg", svg, "--mono"}, short...)...)
		if code != 0 || errs != "" || !strings.Contains(out, "asciinema play "+cast) {
			t.Fatalf("exit %d: %s%s", code, out, errs)
		}
		b, err := os.ReadFile(cast)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Version, Width, Height int
			Title                  string
		}
		if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &head); err != nil || head.Version != 2 || head.Width != 60 ||
			head.Height != 16 || !strings.Contains(head.Title, "Forward and reverse") {
			t.Errorf("header %+v (%v)", head, err)
		}
		if !strings.Contains(string(b), "n N esc") || !strings.Contains(string(b), "ad-graph") {
			t.Error("the cast lacks the tour's caption or the panes")
		}
		s, err := os.ReadFile(svg)
		if err != nil || xml.Unmarshal(s, new(struct{})) != nil || !strings.Contains(string(s), "ad-graph") {
			t.Errorf("svg: %v\n%.200s", err, s)
		}
		// Again, over the same files: the same bytes.
		if _, errs, code := rec(append([]string{"ad-forward-reverse", "--out", cast, "--svg", svg, "--mono", "--overwrite"}, short...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if again, _ := os.ReadFile(cast); !bytes.Equal(b, again) {
			t.Error("two recordings differ")
		}
	})
	t.Run("a file, named after it", func(t *testing.T) {
		t.Chdir(dir)
		if _, errs, code := rec(append([]string{"mine.scene"}, short...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(filepath.Join(dir, "mine.cast"))
		if err != nil || !strings.Contains(string(b), "two panes of gd.") {
			t.Errorf("mine.cast: %v", err)
		}
	})
	t.Run("help", func(t *testing.T) {
		for _, h := range []string{"-h", "--help"} {
			if out, _, code := rec(h); code != 0 || !strings.Contains(out, "Usage: lab record") {
				t.Errorf("%s: exit %d: %s", h, code, out)
			}
		}
	})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no scene", nil, "which scene?"},
		{"two scenes", []string{"gd", "mh"}, "one scene at a time"},
		{"unknown scene", []string{"zzzz"}, `zzzz is neither a built-in scene`},
		{"bad scene file", []string{file + "x"}, "neither a built-in scene"},
		{"size", []string{"ad-forward-reverse", "--size", "10x5"}, "--size must be WxH from 26x9 to 400x200, got 10x5"},
		{"size form", []string{"ad-forward-reverse", "--size", "big"}, "--size must be WxH"},
		{"too large", []string{"ad-forward-reverse", "--size", "401x30"}, "to 400x200"},
		{"seconds", []string{"ad-forward-reverse", "--seconds", "0"}, "--seconds 0: from 1 to 600"},
		{"fps", []string{"ad-forward-reverse", "--fps", "31"}, "--fps 31: from 1 to 30"},
		{"not a number", []string{"ad-forward-reverse", "--fps", "x"}, "--fps x: must be a whole number"},
		{"unknown flag", []string{"ad-forward-reverse", "--bogus"}, "unknown flag --bogus"},
		{"existing out", []string{"ad-forward-reverse", "--out", taken}, "exists (--overwrite replaces it)"},
		{"existing svg", []string{"ad-forward-reverse", "--out", filepath.Join(dir, "new.cast"), "--svg", taken}, "exists"},
		{"svg on out", []string{"ad-forward-reverse", "--out", taken, "--svg", taken}, "both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := rec(tt.args...)
			if code != 2 || !strings.Contains(errs, tt.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q: want 2 and %q", code, out, errs, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(taken); string(b) != "mine" {
		t.Errorf("the existing file was changed to %.40q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.cast")); err == nil {
		t.Error("a refused recording left its cast")
	}
}
