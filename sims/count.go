package sims

import "strconv"

// Count is "n noun", the noun plural unless n is 1 ("1 iteration",
// "3 iterations"): for notes whose counts may be 1. The noun's plural is
// noun + "s".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
