package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// crashCSI is the 90-byte sequence: a CSI with 41 parameters.
var crashCSI = "\x1b[" + strings.Repeat("1;", 40) + "m"

// hostile are inputs that attack the parser or its buffers.
var hostile = []string{
	crashCSI,
	"\x1b[" + strings.Repeat("1;", 40) + "u",
	"\x1b[" + strings.Repeat("1;", 40) + "~",
	"\x1b[" + strings.Repeat("1;", 40) + "_",
	"\x1b[" + strings.Repeat(";", 100) + "m",
	"\x1b[" + strings.Repeat("1:", 40) + "u",                                     // sub-parameters count too
	"\x1b[<" + strings.Repeat("1;", 40) + "M",                                    // SGR mouse with a prefix
	"\x9b" + strings.Repeat("1;", 40) + "m",                                      // 8-bit CSI
	"\x1bP" + strings.Repeat("1;", 40) + "q",                                     // DCS parameters
	"\x90" + strings.Repeat("1;", 40) + "q\x9c",                                  // 8-bit DCS
	"\x1b[1;2\x9b" + strings.Repeat(";1", 40) + "m",                              // a C1 inside a CSI
	"\x1b\x9b[" + strings.Repeat("1;", 40) + "m",                                 // a C1 after ESC
	"\xc4" + "\x9b" + strings.Repeat("1;", 40) + "m",                             // a C1 as a continuation byte
	"\xe2\x9b" + strings.Repeat("1;", 40) + "m",                                  // of a broken character
	"\x1b[" + strings.Repeat(";", 12) + "\xff" + strings.Repeat(";", 20) + "0m",  // a high byte inside a CSI (found by fuzzing)
	"\x1b[" + strings.Repeat("1;", 12) + "\xc4" + strings.Repeat("1;", 20) + "m", // a broken character inside a CSI
	"\x1b]11;" + strings.Repeat("x", 10000) + "\x07",
	"\x1b]11;\x9b" + strings.Repeat("1;", 40) + "m", // a C1 in a string
	"\x1b_" + strings.Repeat("G", 5000),             // unterminated APC
	"\x1b" + strings.Repeat(" ", 1000) + "F",        // intermediates
	"\x1b[200~" + strings.Repeat("paste", 20000) + "\x1b[201~q",
	strings.Repeat("\x1b[", 1000),
}

func sanitise(in string) string {
	var s sanitiser
	return string(s.filter(nil, []byte(in)))
}

// decodeAll runs the parser Bubble Tea's input reader runs over b (the
// same 32-parameter parser), restarting it at each of the given offsets as
// its escape timeout does, and reports a panic.
func decodeAll(b []byte, restarts []int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("parser panicked: %v", v)
		}
	}()
	p := ansi.NewParser()
	p.SetParamsSize(32)
	p.SetDataSize(4096)
	var state byte
	at := 0
	for len(b) > 0 {
		for len(restarts) > 0 && restarts[0] <= at {
			state, restarts = 0, restarts[1:]
		}
		_, _, n, ns := ansi.DecodeSequence(b, state, p)
		if n == 0 {
			n = 1
		}
		state, b, at = ns, b[n:], at+n
	}
	return nil
}

func TestSanitiserCapsSequencesTheParserCannotTake(t *testing.T) {
	if decodeAll([]byte(crashCSI), nil) == nil {
		t.Log("note: this version of x/ansi no longer panics on the issue's sequence; the sanitiser stays as a cap")
	}
	for _, in := range hostile {
		out := sanitise(in)
		if err := decodeAll([]byte(out), nil); err != nil {
			t.Errorf("%q: %v", trim(in), err)
		}
		if n := maxParamsOf(out); n >= maxSeqParams {
			t.Errorf("%q: a sequence with %d separators got through: %q", trim(in), n, trim(out))
		}
		for i := 0; i < len(out); {
			r, w := utf8.DecodeRuneInString(out[i:])
			if r == utf8.RuneError && w == 1 && out[i] >= 0x80 && out[i] <= 0x9f {
				t.Errorf("%q: a lone C1 byte %#x got through at %d", trim(in), out[i], i)
				break
			}
			i += w
		}
	}
	// A cut paste ends with the end marker, well within the cap, and the
	// key after the real end marker arrives.
	out := sanitise(hostile[len(hostile)-2])
	if !strings.HasSuffix(out, pasteEnd+"q") || len(out) > maxPaste+64 || strings.Count(out, pasteEnd) != 1 {
		t.Errorf("a 100 kB paste became %d bytes ending %q", len(out), out[max(0, len(out)-20):])
	}
}

func TestSanitiserPassesWhatTerminalsSend(t *testing.T) {
	for _, in := range []string{
		"q", " ", "\t", "\r", "\x7f", "\x03",
		"\x1b", "\x1b\x1b", "\x1bx", // escape, alt+x
		"\x1b[A", "\x1bOA", "\x1b[1;5C", "\x1b[3~", "\x1b[15;2~",
		"\x1b[97;5u", "\x1b[97;1:3u", "\x1b[1;5:3A", // kitty keyboard
		"\x1b[<0;10;20M", "\x1b[<64;3;4m", "\x1b[M !!", // mouse
		"\x1b[I", "\x1b[O", // focus
		"\x1b[?2026;2$y", "\x1b[?1;2c", "\x1b[24;80R", // replies to queries
		"\x1b]11;rgb:0000/0000/0000\x1b\\", "\x1b]10;rgb:ffff/ffff/ffff\x07",
		"\x1bP>|xterm(388)\x1b\\", "\x1b_Gi=1;OK\x1b\\",
		"\x1b[200~héllo\nworld ě 𝔘 日本\x1b[201~",
		"plain text with ünïcödé, ě and 🙂",
	} {
		if out := sanitise(in); out != in {
			t.Errorf("%q became %q", in, out)
		}
	}
	// An 8-bit ST ends a string as ESC \ does.
	if got := sanitise("\x1b]11;x\x9cq"); got != "\x1b]11;x\x1b\\q" {
		t.Errorf("8-bit ST: %q", got)
	}
}

// TestSanitiserIsChunkIndependent: the output does not depend on how the
// input was split into reads.
func TestSanitiserIsChunkIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, in := range append(hostile, randomInputs(rng, 200)...) {
		want := sanitise(in)
		var s sanitiser
		var got []byte
		for rest := []byte(in); len(rest) > 0; {
			n := 1 + rng.IntN(min(len(rest), 40))
			got = s.filter(got, rest[:n])
			rest = rest[n:]
		}
		if string(got) != want {
			t.Fatalf("%q: split reads gave %q, one read %q", trim(in), trim(string(got)), trim(want))
		}
	}
}

// TestSanitisedInputNeverCrashesTheParser feeds random and hostile inputs,
// sanitised, to the parser restarted at random offsets (its escape timeout
// abandons a sequence), and to the real input reader of Bubble Tea.
func TestSanitisedInputNeverCrashesTheParser(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inputs := append(hostile, randomInputs(rng, 300)...)
	for _, in := range inputs {
		out := []byte(sanitise(in))
		for range 5 {
			var restarts []int
			for i := range out {
				if rng.IntN(20) == 0 {
					restarts = append(restarts, i)
				}
			}
			if err := decodeAll(out, restarts); err != nil {
				t.Fatalf("%q sanitised to %q: %v (restarts %v)", trim(in), trim(string(out)), err, restarts)
			}
		}
	}
	// The real reader, over each hostile input and over random ones ten at
	// a time (it rescans what it holds on every read, so long streams
	// without a pause are slow: the input pump pauses for it).
	for _, in := range hostile {
		readAllEvents(t, []byte(sanitise(in)), rng)
	}
	for i := len(hostile); i+10 <= len(inputs); i += 10 {
		var all []byte
		for _, in := range inputs[i : i+10] {
			all = append(all, sanitise(in)...)
		}
		readAllEvents(t, all, rng)
	}
}

// readAllEvents runs Bubble Tea's terminal reader over b, read in random
// chunks, until it has read everything. A panic there would end the test
// binary, as it ended the server.
func readAllEvents(t *testing.T, b []byte, rng *rand.Rand) {
	t.Helper()
	r := uv.NewTerminalReader(&chunkReader{b: b, rng: rng}, "xterm-256color")
	events := make(chan uv.Event, 64)
	done := make(chan error, 1)
	go func() { done <- r.StreamEvents(context.Background(), events) }()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-events:
		case err := <-done:
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			return
		case <-deadline:
			t.Fatal("the terminal reader did not finish")
		}
	}
}

type chunkReader struct {
	b   []byte
	rng *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+c.rng.IntN(64))], c.b)
	c.b = c.b[n:]
	return n, nil
}

// randomInputs are byte strings rich in the bytes that matter to the
// parser: ESC, C1 controls, separators, digits, finals, UTF-8 leads.
func randomInputs(rng *rand.Rand, n int) []string {
	alphabet := []byte("\x1b\x1b\x1b[[[P]_^X;;;;;:::0123456789m~uM<?$ \x07\x18\\\x9b\x9c\x90\x9d\xc4\xe2\xf0\x80\xbfaq")
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 1+rng.IntN(400))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		out[i] = string(b)
	}
	return out
}

// maxParamsOf is the largest number of separators in one CSI or DCS of s.
func maxParamsOf(s string) int {
	most, n, in := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == esc && i+1 < len(s) && (s[i+1] == '[' || s[i+1] == 'P'):
			in, n = true, 0
			i++
		case in && (c == ';' || c == ':'):
			n++
			most = max(most, n)
		case in && c >= '0' && c <= '?':
		default:
			in = false
		}
	}
	return most
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:60] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

func FuzzSanitiser(f *testing.F) {
	for _, in := range hostile {
		f.Add([]byte(in), uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint8) {
		var s sanitiser
		whole := s.filter(nil, in)
		var s2 sanitiser
		var parts []byte
		step := 1 + int(split)%32
		for i := 0; i < len(in); i += step {
			parts = s2.filter(parts, in[i:min(len(in), i+step)])
		}
		if !bytes.Equal(whole, parts) {
			t.Fatalf("split reads differ: %q vs %q", parts, whole)
		}
		var restarts []int
		for i := 0; i < len(whole); i += step {
			restarts = append(restarts, i)
		}
		if err := decodeAll(whole, nil); err != nil {
			t.Fatal(err)
		}
		if err := decodeAll(whole, restarts); err != nil {
			t.Fatal(err)
		}
	})
}
