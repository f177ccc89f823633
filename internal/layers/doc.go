// Package layers holds the test of the lab's layering rule
// (docs/ARCHITECTURE.md): the packages stand on floors — internal
// utilities, then algo (mathematics only), sims, scene, tui, then record
// and serve, then the commands — and none imports a package of its own
// floor in another tree or of a floor above it. It has no code: the rule
// is its test.
package layers
