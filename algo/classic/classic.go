// Package classic holds the classifiers of scikit-learn's "Classifier
// comparison": k nearest neighbours, the CART decision tree, the random
// forest and Gaussian naive Bayes, each on rows of d real features with
// class labels 0..C−1, and each steppable so that a pane can show it being
// built (the tree a split at a time, the forest a tree at a time, naive
// Bayes a point at a time, k-NN a neighbour count at a time).
//
// The references are the standard ones: Cover and Hart (1967) and Hastie,
// Tibshirani and Friedman, The Elements of Statistical Learning (2nd ed.,
// 2009; ESL) §13.3 for k-NN; Breiman, Friedman, Olshen and Stone,
// Classification and Regression Trees (1984) and ESL §9.2 for CART;
// Breiman, "Random forests", Machine Learning 45 (2001) and ESL §15 for the
// forest; ESL §6.6.3 for naive Bayes. Where a rule is a convention rather
// than mathematics (ties, thresholds, smoothing), it is scikit-learn's
// (version 1.x: KNeighborsClassifier, DecisionTreeClassifier,
// RandomForestClassifier, GaussianNB), so that the same data give the same
// predictions.
package classic

import (
	"fmt"

	"github.com/thelab/lab/algo"
)

// checkData validates a training set: n ≥ 1 rows of the same d ≥ 1 finite
// features, and n labels in 0..classes−1, classes ≥ 2. It returns d.
func checkData(x [][]float64, y []int, classes int) (int, error) {
	if classes < 2 || classes > MaxClasses {
		return 0, algo.BadParam("classes", classes, fmt.Sprintf("in 2..%d", MaxClasses))
	}
	if len(x) == 0 {
		return 0, algo.BadParam("x", "no rows", "at least one row")
	}
	if len(y) != len(x) {
		return 0, algo.BadParam("y", fmt.Sprintf("%d labels", len(y)), fmt.Sprintf("one label a row (%d)", len(x)))
	}
	d := len(x[0])
	if d == 0 {
		return 0, algo.BadParam("x", "rows of no features", "at least one feature")
	}
	for i, r := range x {
		if len(r) != d {
			return 0, algo.BadParam("x", fmt.Sprintf("row %d has %d features", i, len(r)), fmt.Sprintf("%d features in every row", d))
		}
		if !algo.AllFinite(r) {
			return 0, algo.BadParam("x", fmt.Sprintf("row %d = %v", i, r), "finite numbers")
		}
		if y[i] < 0 || y[i] >= classes {
			return 0, algo.BadParam("y", fmt.Sprintf("label %d of row %d", y[i], i), fmt.Sprintf("in 0..%d", classes-1))
		}
	}
	return d, nil
}

// MaxClasses bounds the number of classes.
const MaxClasses = 64

// Classifier is what the four engines share: class probabilities at a
// query point (written into p, one per class) and the predicted class,
// the most probable with ties to the smallest label.
type Classifier interface {
	Proba(q, p []float64)
	Predict(q []float64) int
}

// Accuracy returns the fraction of rows of x that c labels as y (0 for no
// rows).
func Accuracy(c Classifier, x [][]float64, y []int) float64 {
	if len(x) == 0 {
		return 0
	}
	right := 0
	for i, r := range x {
		if c.Predict(r) == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(x))
}
