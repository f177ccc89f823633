package sims

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// How well a search term matches a sim, best first (Catalog.Search).
const (
	MatchName       = iota // the sim's name is the term
	MatchNamePrefix        // the name starts with it
	MatchInName            // the name contains it
	MatchWord              // a word of the title or source starts with it
	MatchText              // the title or source contains it
	MatchFamily            // its family's name or words (Family.About) contain it
	MatchLetters           // the name and title hold its letters in order
)

// Match is a sim found by Catalog.Search and how well it matched.
type Match struct {
	Spec *Spec
	Tier int // MatchName … MatchLetters
}

// Search ranks the sims against a term, case-insensitively and best first:
// exact names, then names starting with the term, names containing it, a
// title or source with a word starting with it, then containing it, then
// the sims of a family whose name or words contain it ("optimal
// transport", "privacy"); ties keep the catalogue's order. Sims whose
// name and title merely hold the term's letters in order (MatchLetters)
// are listed only when no sim contains the term: typing "kme" finds
// kmeans, not every sim with a k, an m and an e. An empty term lists
// every sim.
func (c *Catalog) Search(term string) []Match {
	term = strings.ToLower(strings.TrimSpace(term))
	var out []Match
	for _, s := range c.specs {
		if tier, ok := s.match(term, c.familyText(s.Name)); ok {
			out = append(out, Match{s, tier})
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int { return cmp.Compare(a.Tier, b.Tier) })
	if len(out) > 0 && out[0].Tier < MatchLetters {
		out = slices.DeleteFunc(out, func(m Match) bool { return m.Tier == MatchLetters })
	}
	return out
}

// familyText is the lower-case name and words of the named sim's family.
func (c *Catalog) familyText(name string) string {
	i, ok := c.family[name]
	if !ok {
		return ""
	}
	return strings.ToLower(c.fams[i].Name + " " + c.fams[i].About)
}

// match says how well a lower-case term matches the sim, whose family's
// name and words are family.
func (s *Spec) match(term, family string) (int, bool) {
	name := strings.ToLower(s.Name)
	text := strings.ToLower(s.Title + " " + s.Source)
	switch {
	case term == "" || name == term:
		return MatchName, true
	case strings.HasPrefix(name, term):
		return MatchNamePrefix, true
	case strings.Contains(name, term):
		return MatchInName, true
	case hasWordPrefix(text, term):
		return MatchWord, true
	case strings.Contains(text, term):
		return MatchText, true
	case strings.Contains(family, term):
		return MatchFamily, true
	case Subsequence(strings.ToLower(s.Name+" "+s.Title), term) != nil:
		return MatchLetters, true
	}
	return 0, false
}

// hasWordPrefix reports whether a word of text (after a character that is
// not a letter or digit, or at the start) starts with term.
func hasWordPrefix(text, term string) bool {
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], term)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !isWordRune(lastRune(text[:at])) {
			return true
		}
		i = at + 1
	}
	return false
}

func lastRune(s string) rune {
	r := []rune(s)
	return r[len(r)-1]
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Subsequence returns the rune indexes of text at which the runes of term
// occur in order (the first such occurrence), or nil when they do not.
func Subsequence(text, term string) []int {
	want := []rune(term)
	if len(want) == 0 {
		return nil
	}
	var at []int
	for i, r := range []rune(text) {
		if r == want[len(at)] {
			at = append(at, i)
			if len(at) == len(want) {
				return at
			}
		}
	}
	return nil
}
