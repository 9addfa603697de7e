// Package suggest finds what a mistyped word most likely meant, for the
// "did you mean" of a usage error or a contract mistake.
package suggest

import "strings"

// Nearest returns the candidate a mistyped word most likely meant: the one
// closest by edit distance (a transposition of adjacent bytes counting as
// one edit) within two edits and half the word's length, else the only
// candidate the word begins. ok is false when none is close or when two are
// equally close. A word that is a candidate is its own nearest (a flag typed
// with one dash: "-gateway" meant "--gateway").
func Nearest(word string, candidates []string) (best string, ok bool) {
	bestD, tie := min(2, len(word)/2)+1, false
	for _, c := range candidates {
		switch d := Distance(word, c); {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD && best != "":
			tie = true
		}
	}
	if tie {
		return "", false
	}
	if best == "" && len(word) >= 2 {
		n := 0
		for _, c := range candidates {
			if strings.HasPrefix(c, word) {
				best, n = c, n+1
			}
		}
		if n != 1 {
			best = ""
		}
	}
	return best, best != ""
}

// Distance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and transpositions of adjacent bytes
// that turn a into b.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
