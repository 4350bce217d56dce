package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/tokenizer"
)

// TestGreedyOrder checks greedy, which sorts the candidates once and keeps re-queued
// neighbours in a heap beside them, against the single heap of float priorities it
// replaced: on random selections with many tied scores, zero-cost lines, protected units,
// budgets and constraints, both keep the same lines.
func TestGreedyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 5))
	tied := []float64{0, 0, 0.25, 0.5, 1, math.Copysign(0, -1)}
	for round := 0; round < 2000; round++ {
		n := 1 + r.IntN(3*radixMin) // both the heap alone and the sorted candidates
		scores := make([]float64, n)
		prot := make([]uint8, n)
		joinPrev := make([]bool, n)
		cost := make([]int, n)
		for i := range n {
			if r.IntN(2) == 0 {
				scores[i] = tied[r.IntN(len(tied))]
			} else {
				scores[i] = r.Float64()
			}
			if r.IntN(20) == 0 {
				prot[i] = uint8(1 + r.IntN(2))
			}
			joinPrev[i] = i > 0 && r.IntN(4) == 0
			cost[i] = r.IntN(12)
		}
		threshold, minKept, budget, markerCost := r.Float64(), r.IntN(n+1), r.IntN(4*n), r.IntN(20)
		build := func() *selection {
			s := newSelection(scores, prot, joinPrev, slices.Clone(cost))
			s.threshold, s.minKept, s.budget, s.markerCost = threshold, minKept, budget, markerCost
			return s
		}
		got, want := build(), build()
		for _, s := range []*selection{got, want} {
			for u := range s.units {
				if u%7 == 3 {
					s.setUnit(u, true)
				}
			}
		}
		order := make([]int, len(got.units))
		for u := range order {
			order[u] = u
		}
		restore := round%2 == 0
		got.greedy(order, restore)
		want.greedyOneHeap(order, restore)
		require.Equal(t, want.keep, got.keep, "round %d, restore %v", round, restore)
	}
}

// greedyOneHeap is greedy as it was: every candidate in one max-heap of float priorities.
func (s *selection) greedyOneHeap(candidates []int, restore bool) {
	total := s.estimate()
	kept := s.keptLines()
	if restore && kept >= s.minKept {
		return
	}
	eligible := s.candidate
	if restore {
		eligible = func(u int) bool { return !s.keep[s.units[u].start] }
	}
	prio := func(u int) float64 {
		sp := s.units[u]
		cost := sp.cost + s.markerDelta(u)*s.markerCost
		if cost <= 0 {
			return math.Inf(1)
		}
		return sp.score * sp.score * sp.score / float64(cost)
	}
	type entry struct {
		unit  int
		prio  float64
		stamp int32
	}
	stamp := make([]int32, len(s.units))
	var q []entry
	less := func(a, b entry) bool { return a.prio > b.prio || (a.prio == b.prio && a.unit < b.unit) }
	push := func(e entry) {
		q = append(q, e)
		for i := len(q) - 1; i > 0; {
			p := (i - 1) / 2
			if !less(q[i], q[p]) {
				break
			}
			q[i], q[p] = q[p], q[i]
			i = p
		}
	}
	pop := func() entry {
		top := q[0]
		q[0] = q[len(q)-1]
		q = q[:len(q)-1]
		for i := 0; ; {
			best, l := i, 2*i+1
			if l < len(q) && less(q[l], q[best]) {
				best = l
			}
			if l+1 < len(q) && less(q[l+1], q[best]) {
				best = l + 1
			}
			if best == i {
				break
			}
			q[i], q[best] = q[best], q[i]
			i = best
		}
		return top
	}
	for _, u := range candidates {
		if eligible(u) {
			push(entry{unit: u, prio: prio(u)})
		}
	}
	for len(q) > 0 {
		top := pop()
		u := top.unit
		if top.stamp != stamp[u] || s.keep[s.units[u].start] {
			continue
		}
		sp := s.units[u]
		delta := sp.cost + s.markerDelta(u)*s.markerCost
		if !restore && total+delta > s.budget {
			continue
		}
		s.setUnit(u, true)
		total += delta
		kept += sp.end - sp.start
		if restore && kept >= s.minKept {
			return
		}
		for _, nb := range [...]int{u - 1, u + 1} {
			if nb >= 0 && nb < len(s.units) && !s.keep[s.units[nb].start] && eligible(nb) {
				stamp[nb]++
				push(entry{unit: nb, prio: prio(nb), stamp: stamp[nb]})
			}
		}
	}
}

// TestSortBest checks the radix sort against a comparison sort on keys with shared bytes.
func TestSortBest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 39))
	for round := 0; round < 500; round++ {
		n := r.IntN(3 * radixMin) // both sorts
		q := make([]ranked, n)
		for i := range q {
			q[i] = ranked{unit: i, prio: math.Float64bits(float64(r.IntN(6)) / float64(1+r.IntN(9)))}
			if r.IntN(3) == 0 {
				q[i].prio = r.Uint64() >> r.IntN(64)
			}
		}
		want := slices.Clone(q)
		slices.SortStableFunc(want, func(a, b ranked) int {
			switch {
			case a.before(b):
				return -1
			case b.before(a):
				return 1
			}
			return 0
		})
		require.Equal(t, want, sortBest(q, make([]ranked, n)), "round %d", round)
	}
}

// BenchmarkRestore restores n one-line units, a tenth kept, to the default 45% of the lines:
// the selection's largest step on a long text. "one-heap" is the greedy it replaced.
func BenchmarkRestore(b *testing.B) {
	for _, n := range []int{200, 10000} {
		r := rand.New(rand.NewPCG(1, 2))
		scores := make([]float64, n)
		cost := make([]int, n)
		for i := range n {
			if r.IntN(3) > 0 {
				scores[i] = r.Float64() * r.Float64()
			}
			cost[i] = 2 + r.IntN(20)
		}
		order := make([]int, n)
		for u := range order {
			order[u] = u
		}
		for _, impl := range []string{"sorted", "one-heap"} {
			b.Run(fmt.Sprintf("lines=%d/impl=%s", n, impl), func(b *testing.B) {
				for b.Loop() {
					s := newSelection(scores, make([]uint8, n), make([]bool, n), cost)
					s.minKept, s.markerCost = minKeptFor(n, DefaultOptions()), 20
					for u := 0; u < n; u += 10 {
						s.setUnit(u, true)
					}
					if impl == "sorted" {
						s.restoreTo(order)
					} else {
						s.greedyOneHeap(order, true)
					}
				}
			})
		}
	}
}

// TestCountOutputPricesMarkersByReason: countOutput prices a numbered answer's markers from
// one count per reason (NumeralCounter) and its lines from their originals' prices; on
// random answers with cut runs of 1 to thousands of lines, line numbers of one to five
// digits and reasons that hold digits, the sum is the answer's exact count.
func TestCountOutputPricesMarkersByReason(t *testing.T) {
	tok, err := tokenizer.Load(tokenizer.CL100K)
	require.NoError(t, err)
	var _ NumeralCounter = tok
	e := &Engine{tokens: tok}
	r := rand.New(rand.NewPCG(39, 7))
	reasons := []string{reasonBudget, reasonLowScore, reasonOffFocus + ": x2", reasonOffFocus + ": 10", reasonOffFocus + ": é"}
	for round := range 40 {
		n := 1 + r.IntN(12000)
		var b []byte
		for i := range n {
			b = strconv.AppendInt(append(b, "line "...), int64(i*r.IntN(3)), 10)
			b = append(b, '\n')
		}
		ls := splitLines(string(b))
		_, restNL := tok.CountLines(string(b))
		keep := make([]bool, n)
		for i := 0; i < n; {
			run, mode := 1+r.IntN([]int{3, 30, 3000}[r.IntN(3)]), r.IntN(3) // keep, cut, or each line at random
			for j := i; j < min(i+run, n); j++ {
				keep[j] = mode == 0 || (mode == 2 && r.IntN(2) == 0)
			}
			i += run
		}
		o := DefaultOptions()
		o.AnnotateLines = true
		out := render(ls, keep, "prn_0123456789abcdef0123456789abcdef", o, func(int, int) string { return reasons[r.IntN(len(reasons))] })
		want := tok.Count(out.text)
		require.Equal(t, want, e.countOutput(context.Background(), out, ls.trailingNewline, restNL, nil), "round %d", round)
		// With numbered counts to fill in, then with those filled in (a text pruned again).
		memo := &numberedCounts{counts: slices.Repeat([]int32{-1}, n)}
		require.Equal(t, want, e.countOutput(context.Background(), out, ls.trailingNewline, restNL, memo), "round %d, learning", round)
		require.Equal(t, slices.Contains(keep, true), memo.learned.Load(), "round %d", round)
		memo.learned.Store(false)
		require.Equal(t, want, e.countOutput(context.Background(), out, ls.trailingNewline, restNL, memo), "round %d, remembered", round)
		require.False(t, memo.learned.Load(), "round %d: nothing left to work out", round)
	}
}
