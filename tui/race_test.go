//go:build race

package tui

// raceEnabled is set when the tests run under the race detector, which
// slows everything several times: timing tests skip themselves then.
const raceEnabled = true
