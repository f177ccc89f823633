package cluster

import "fmt"

// AdjustedRand is the adjusted Rand index of two labellings of the same
// points (Hubert & Arabie 1985): the Rand index corrected for chance,
// ARI = (Σ_ij C(n_ij, 2) − E) / (½(Σ_i C(a_i, 2) + Σ_j C(b_j, 2)) − E),
// E = Σ_i C(a_i, 2) Σ_j C(b_j, 2) / C(n, 2), over the contingency table
// n_ij of the two labellings with row sums a_i and column sums b_j. It is
// 1 for equal partitions (whatever their names), about 0 for independent
// ones, and may be negative. It is computed as scikit-learn's
// adjusted_rand_score does, from the pair confusion matrix: with tp, fp,
// fn, tn the pairs together in both, in the second only, in the first
// only and in neither, ARI = 2(tp·tn − fn·fp) / ((tp + fn)(fn + tn) +
// (tp + fp)(fp + tn)), and 1 when fn = fp = 0 (both partitions the same,
// the 0/0 of one cluster against one class included).
//
// Labels are any ints; a label −1 (DBSCAN's noise) is one more cluster,
// as scikit-learn counts it.
func AdjustedRand(a, b []int) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("cluster: labellings of %d and %d points", len(a), len(b))
	}
	n := len(a)
	type pair struct{ i, j int }
	table := map[pair]int{}
	rows, cols := map[int]int{}, map[int]int{}
	for k := range a {
		table[pair{a[k], b[k]}]++
		rows[a[k]]++
		cols[b[k]]++
	}
	var sumSq, sumA, sumB int64 // Σ n_ij², Σ a_i², Σ b_j²: exact integers, as scikit-learn's
	for _, v := range table {
		sumSq += int64(v) * int64(v)
	}
	for _, v := range rows {
		sumA += int64(v) * int64(v)
	}
	for _, v := range cols {
		sumB += int64(v) * int64(v)
	}
	nn := int64(n)
	tp := float64(sumSq - nn)
	fp := float64(sumB - sumSq) // together in b, apart in a
	fn := float64(sumA - sumSq) // together in a, apart in b
	tn := float64(nn*nn - (sumB - sumSq) - (sumA - sumSq) - sumSq)
	if fn == 0 && fp == 0 {
		return 1, nil
	}
	return 2 * (tp*tn - fn*fp) / ((tp+fn)*(fn+tn) + (tp+fp)*(fp+tn)), nil
}
