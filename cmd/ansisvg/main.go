// Command ansisvg draws text with ANSI colours (SGR escape codes) as an SVG
// image, for the README's screenshot:
//
//	go run ./cmd/lab run gd --frames --color --size 100x28 --steps 40 | go run ./cmd/ansisvg > docs/gd.svg
//
// It reads stdin and writes the SVG to stdout; the drawing is package
// internal/ansisvg's (lab record --svg draws its still with it too).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/thelab/lab/internal/ansisvg"
)

func main() {
	in, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ansisvg:", err)
		os.Exit(1)
	}
	os.Stdout.WriteString(ansisvg.SVG(string(in)))
}
