package ansisvg

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestParseStyles(t *testing.T) {
	rows := parse("\x1b[38;5;212m┃\x1b[m\x1b[1mgd\x1b[0m\n\x1b[0;38;2;1;2;3;48;2;4;5;6m▀\x1b[7mx\x1b[27;39m\x1b[2Je\u0301\n")
	if len(rows) != 2 || len(rows[0]) != 3 || len(rows[1]) != 3 {
		t.Fatalf("rows %v", rows)
	}
	if c := rows[0][0]; c.r != "┃" || c.st.fg != "#ff87d7" {
		t.Errorf("256-colour cell: %+v", c)
	}
	if c := rows[0][1]; !c.st.bold || c.st.fg != "" {
		t.Errorf("bold cell: %+v", c)
	}
	if c := rows[1][0]; halfColour(c, 0) != "#010203" || halfColour(c, 1) != "#040506" {
		t.Errorf("▀ halves: %s, %s", halfColour(c, 0), halfColour(c, 1))
	}
	if fg, bg := rows[1][1].st.colours(); fg != "#040506" || bg != "#010203" {
		t.Errorf("reverse: fg %s bg %s", fg, bg)
	}
	if c := rows[1][2]; c.r != "e\u0301" || c.st.fg != "" {
		t.Errorf("combining mark, after 39: %+v", c)
	}
	// The document is well-formed XML with escaped text.
	svg := render(parse("a<b & \"c\"\n"))
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil || !strings.Contains(svg, "a&lt;b") {
		t.Errorf("not well-formed: %v\n%s", err, svg)
	}
}
