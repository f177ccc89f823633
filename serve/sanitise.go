package serve

// Caps on what a visitor's terminal may send. A real terminal sends a
// handful of parameters (a kitty keyboard report has three, some with
// sub-parameters), short replies to the renderer's queries and pasted text;
// anything beyond these caps is dropped before Bubble Tea's input parser
// sees it. The parser (charmbracelet/x/ansi v0.11.9, the newest) indexes a
// 32-entry array by the parameter count without a bound check, so a single
// CSI with 33 parameters panics in a goroutine nobody can recover, and the
// input reader buffers a bracketed paste, or an unterminated string, whole.
const (
	maxSeqParams        = 16   // parameters and sub-parameters of one CSI or DCS
	maxSeqParamBytes    = 64   // their bytes
	maxSeqIntermediates = 4    // intermediate bytes of one escape sequence
	maxSeqString        = 1024 // data bytes of one OSC, DCS, APC, SOS or PM string
	maxPaste            = 64 << 10
)

// Bytes the filter treats specially.
const (
	bel = 0x07
	can = 0x18
	sub = 0x1a
	esc = 0x1b
	st  = 0x9c // 8-bit String Terminator
)

// pasteEnd ends a bracketed paste.
const pasteEnd = "\x1b[201~"

// States of the sanitiser. They follow ansi.DecodeSequence's, so that a
// sequence starts and ends for the filter where it does for the parser.
const (
	stNormal    = iota
	stEsc       // after ESC
	stCSI       // after ESC [ or ESC P: prefix, parameters, intermediates
	stString    // OSC, DCS data, APC, SOS, PM
	stStringEsc // an ESC inside a string: ST if '\' follows, else a new sequence
)

// sanitiser filters a visitor's input stream, across reads. It passes
// valid UTF-8 text and escape sequences within the caps, and:
//
//   - drops a CSI's or DCS's parameters beyond maxSeqParams or
//     maxSeqParamBytes, intermediates beyond maxSeqIntermediates and string
//     data beyond maxSeqString, keeping the sequence's end;
//   - never passes a lone 8-bit C1 control (0x80–0x9f): a UTF-8 terminal
//     never sends one and the parser would take it for the start of a
//     sequence; an 8-bit ST ending a string becomes ESC \, and a character
//     is passed whole, once complete, so that no read ends inside one;
//   - drops any byte of 0x80–0xff inside an escape sequence's header;
//   - drops invalid UTF-8;
//   - ends a bracketed paste after maxPaste bytes and drops the rest of it.
//
// A dropped byte leaves the state as it was: the parser sees the bytes on
// either side of it joined, and so does the filter. Every ESC starts a new
// sequence for both, so even when the parser gives up on a sequence early
// (its escape timeout), it can be inside a CSI only when the filter is.
type sanitiser struct {
	state   int
	osc     bool // the string is an OSC (BEL ends it)
	dcs     bool // the sequence is a DCS: data follows its final byte
	params  int  // separators in this CSI or DCS
	pbytes  int  // parameter bytes in this CSI or DCS
	inter   int  // intermediate bytes in this sequence
	strLen  int  // data bytes of this string
	code    int  // the CSI's first parameter while it is plain digits
	plain   bool
	paste   bool // inside a bracketed paste
	discard bool // dropping the rest of a paste cut short
	pasted  int  // bytes of this paste passed
	char    [4]byte
	nchar   int // bytes of a UTF-8 character held until it is complete
	need    int // continuation bytes it still needs
	lo, hi  byte
	// mark is where, in the output of the last call to filter, the stream
	// was last between sequences and characters (-1: nowhere): a pause
	// there lets the parser's escape timeout flush what it holds.
	mark int
}

// filter appends the sanitised form of p to dst.
func (s *sanitiser) filter(dst, p []byte) []byte {
	keep := func(b ...byte) {
		if s.discard {
			return
		}
		if s.paste {
			s.pasted += len(b)
		}
		dst = append(dst, b...)
	}
	s.mark = -1
	if s.between() {
		s.mark = len(dst)
	}
	for _, c := range p {
		if s.between() {
			s.mark = len(dst)
		}
	again:
		switch s.state {
		case stNormal:
			if s.need > 0 {
				if c >= s.lo && c <= s.hi {
					s.char[s.nchar] = c
					s.nchar++
					s.need--
					s.lo, s.hi = 0x80, 0xbf
					if s.need == 0 {
						keep(s.char[:s.nchar]...)
						s.nchar = 0
					}
					continue
				}
				s.need, s.nchar = 0, 0 // a broken character is dropped; c starts afresh
			}
			if s.paste && !s.discard && s.pasted >= maxPaste {
				dst = append(dst, pasteEnd...)
				s.paste, s.discard = false, true
			}
			switch {
			case c == esc:
				s.state, s.inter = stEsc, 0
				keep(c)
			case c < 0x80:
				keep(c)
			default:
				s.utfStart(c)
			}
		case stEsc:
			switch {
			case c == '[' || c == 'P':
				s.state, s.dcs = stCSI, c == 'P'
				s.params, s.pbytes, s.inter, s.code, s.plain = 0, 0, 0, 0, true
				keep(c)
			case c == ']' || c == 'X' || c == '^' || c == '_':
				s.state, s.osc, s.strLen = stString, c == ']', 0
				keep(c)
			case c >= 0x20 && c <= 0x2f:
				if s.inter++; s.inter <= maxSeqIntermediates {
					keep(c)
				}
			case c >= 0x30 && c <= 0x7e:
				s.state = stNormal
				keep(c)
			case c >= 0x80: // dropped: the ESC still waits
			default: // an invalid sequence: c is read afresh (an ESC starts another)
				s.state = stNormal
				goto again
			}
		case stCSI:
			switch {
			case c >= 0x30 && c <= 0x3f && s.inter == 0:
				if c == ';' || c == ':' {
					s.params++
				}
				if c >= '0' && c <= '9' && s.params == 0 && s.plain && s.code < 1000 {
					s.code = 10*s.code + int(c-'0')
				} else {
					s.plain = false
				}
				if s.pbytes++; s.params < maxSeqParams && s.pbytes <= maxSeqParamBytes {
					keep(c)
				}
			case c >= 0x20 && c <= 0x2f:
				if s.inter++; s.inter <= maxSeqIntermediates {
					keep(c)
				}
			case c >= 0x40 && c <= 0x7e:
				s.final(c, keep)
			case c >= 0x80:
				// Dropped, and the sequence goes on: passed, the byte would
				// end it for the parser; dropped while the filter took it as
				// ended, the parser would go on counting parameters.
			default: // not part of a sequence: the parser drops what it has
				s.state = stNormal
				goto again
			}
		case stString:
			switch {
			case c == esc:
				s.state = stStringEsc
				keep(c)
			case c == bel && s.osc:
				s.state = stNormal
				keep(c)
			case c == st:
				s.state = stNormal
				keep(esc, '\\')
			case c == can || c == sub:
				s.state = stNormal
				goto again
			case c >= 0x80 && c <= 0x9f: // dropped
			default:
				if s.strLen++; s.strLen <= maxSeqString {
					keep(c)
				}
			}
		case stStringEsc:
			switch {
			case c == '\\':
				s.state = stNormal
				keep(c)
			case c >= 0x80: // dropped: the ESC still waits
			default: // the ESC cancelled the string and starts a sequence
				s.state, s.inter = stEsc, 0
				goto again
			}
		}
	}
	if s.between() {
		s.mark = len(dst)
	}
	return dst
}

// between reports whether the stream is between sequences and characters.
func (s *sanitiser) between() bool { return s.state == stNormal && s.nchar == 0 && !s.discard }

// final ends a CSI or the header of a DCS with its final byte c, and
// follows bracketed pastes: ESC [ 200 ~ starts one, ESC [ 201 ~ ends it.
func (s *sanitiser) final(c byte, keep func(...byte)) {
	if s.dcs {
		keep(c)
		s.state, s.osc, s.strLen = stString, false, 0
		return
	}
	s.state = stNormal
	if c != '~' || s.params != 0 || s.inter != 0 || !s.plain {
		keep(c)
		return
	}
	switch s.code {
	case 200:
		keep(c)
		s.paste, s.pasted = true, 0
	case 201:
		keep(c) // nothing while discarding: the paste already ended
		s.paste, s.discard = false, false
	default:
		keep(c)
	}
}

// utfStart holds a UTF-8 lead byte c and notes how many continuation
// bytes it needs and the range of the first, as utf8.DecodeRune accepts
// them. Any other byte of 0x80–0xff on its own is dropped.
func (s *sanitiser) utfStart(c byte) {
	s.lo, s.hi = 0x80, 0xbf
	switch {
	case c >= 0xc2 && c <= 0xdf:
		s.need = 1
	case c == 0xe0:
		s.need, s.lo = 2, 0xa0
	case c == 0xed:
		s.need, s.hi = 2, 0x9f
	case c >= 0xe1 && c <= 0xef:
		s.need = 2
	case c == 0xf0:
		s.need, s.lo = 3, 0x90
	case c == 0xf4:
		s.need, s.hi = 3, 0x8f
	case c >= 0xf1 && c <= 0xf3:
		s.need = 3
	default:
		return
	}
	s.char[0], s.nchar = c, 1
}
