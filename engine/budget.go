package engine

import "math"

// budgetSelect fills the token budget by value per token: a unit's value is its score raised
// to scorePower (so the ranking stays dominated by relevance) and its cost is its tokens
// plus the marker it opens or minus the marker it closes. Keeping a unit changes only its
// neighbours' costs, so those are re-queued with fresh priorities.
func (s *selection) budgetSelect(candidates []int) {
	s.greedy(candidates, false)
}

// restoreTo keeps more units, best value per token first (closing gaps first, since that
// removes a marker), until at least minKept lines are kept: the hard constraints met with
// as few extra markers as the scores allow.
func (s *selection) restoreTo(candidates []int) {
	s.greedy(candidates, true)
}

// greedy is the value-per-token loop shared by budget filling (stop when nothing fits) and
// constraint restoration (ignore the budget and the threshold, stop at minKept lines).
//
// Units are taken best first: highest priority, then lowest index. Keeping a unit only
// raises its neighbours' priorities (their markers get cheaper), so the candidates are
// sorted once and a neighbour whose priority changed goes into a heap beside them with a
// new stamp; the next unit is the better of the two heads, and an entry whose stamp is old
// is skipped. A single heap of everything gives the same order (TestGreedyOrder) and cost
// most of a large restoration in its pops; below radixMin candidates it is still the
// cheaper, and is what greedy uses.
func (s *selection) greedy(candidates []int, restore bool) {
	total := s.estimate()
	kept := s.keptLines()
	if restore && kept >= s.minKept {
		return
	}
	eligible := s.candidate
	if restore {
		eligible = func(u int) bool { return !s.keep[s.units[u].start] }
	}
	stamp := make([]int32, len(s.units))
	all := make([]ranked, 0, len(candidates))
	for _, u := range candidates {
		if eligible(u) {
			all = append(all, ranked{unit: u, prio: s.priority(u)})
		}
	}
	var sorted []ranked
	var q unitQueue // re-queued neighbours, and below radixMin every candidate
	if len(all) >= radixMin {
		sorted = sortBest(all, make([]ranked, len(all)))
	} else {
		// Few candidates: one heap of them all costs less than sorting them.
		q = make(unitQueue, len(all), len(all)+8)
		for i, r := range all {
			q[i] = queued{ranked: r}
		}
		q.init()
	}
	for len(sorted) > 0 || len(q) > 0 {
		var top queued
		if len(q) == 0 || (len(sorted) > 0 && !q[0].before(sorted[0])) {
			top, sorted = queued{ranked: sorted[0]}, sorted[1:]
		} else {
			top = q.pop()
		}
		u := top.unit
		if top.stamp != stamp[u] || s.keep[s.units[u].start] {
			continue // superseded by a fresher entry, or kept meanwhile
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
				q.push(queued{ranked{prio: s.priority(nb), unit: nb}, stamp[nb]})
			}
		}
	}
}

// sortBest returns q (in unit order) ordered best first: a stable radix sort on the
// complemented priorities, 11 bits a pass, so equal priorities keep the lower unit first.
// tmp is scratch of q's length; the result is q or tmp.
func sortBest(q, tmp []ranked) []ranked {
	const bits = 11
	src, dst := q, tmp
	for shift := 0; shift < 64 && len(src) > 1; shift += bits {
		var count [1 << bits]int32
		for _, e := range src {
			count[(^e.prio>>shift)&(1<<bits-1)]++
		}
		if int(count[(^src[0].prio>>shift)&(1<<bits-1)]) == len(src) {
			continue // every key has these bits: the pass would not move anything
		}
		var at int32
		for b, c := range count {
			count[b] = at
			at += c
		}
		for _, e := range src {
			b := (^e.prio >> shift) & (1<<bits - 1)
			dst[count[b]] = e
			count[b]++
		}
		src, dst = dst, src
	}
	return src
}

// radixMin is the least candidates greedy sorts; below it they all go in the heap. The
// radix sort's 2,048 counters a pass cost 21 µs whatever the size, and BenchmarkRestore at
// 200 lines ran 24-28 µs with the heap against 33-36 with a comparison sort.
const radixMin = 512

// ScorePower sharpens scores in budget selection (a unit is worth score^ScorePower per
// token) so a cheap irrelevant line never outbids a relevant one; 3 was best on the
// development sets among 1, 2, 3, 4, 8, 16 (recall at 20% of tokens). Exported for trainers
// that optimise for this selection.
const ScorePower = 3

// priority cubes scores by hand; this fails to compile if ScorePower changes without it.
var _ = [1]struct{}{}[ScorePower-3]

func (s *selection) candidate(u int) bool {
	sp := s.units[u]
	return sp.prot != protHard && (sp.score >= s.threshold || sp.prot != protNone)
}

// priority is a unit's value per token, as the bits of a float64: a unit's score is in
// [0, 1] and never -0 (newSelection takes the max with +0), so priorities are not negative
// and their bits order as they do.
func (s *selection) priority(u int) uint64 {
	sp := s.units[u]
	cost := sp.cost + s.markerDelta(u)*s.markerCost
	v := sp.score * sp.score * sp.score // score^ScorePower, without math.Pow in the hot loop
	if cost <= 0 {
		return math.Float64bits(math.Inf(1)) // keeping it saves tokens
	}
	return math.Float64bits(v / float64(cost))
}

// ranked is a unit and its priority's bits; queued adds the stamp of the unit's entry.
type ranked struct {
	prio uint64
	unit int
}

type queued struct {
	ranked
	stamp int32
}

// before reports whether a is taken before b: higher priority, then lower unit.
func (a ranked) before(b ranked) bool {
	return a.prio > b.prio || (a.prio == b.prio && a.unit < b.unit)
}

// unitQueue is a binary max-heap of queued units (highest priority, then lowest index, first),
// typed rather than container/heap: it is the hot loop of selection.
type unitQueue []queued

func (q unitQueue) less(i, j int) bool { return q[i].before(q[j].ranked) }

func (q unitQueue) init() {
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q *unitQueue) push(x queued) {
	*q = append(*q, x)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *unitQueue) pop() queued {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	*q = h[:last]
	q.down(0)
	return top
}

func (q unitQueue) down(i int) {
	n := len(q)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		best := l
		if r := l + 1; r < n && q.less(r, l) {
			best = r
		}
		if !q.less(best, i) {
			return
		}
		q[i], q[best] = q[best], q[i]
		i = best
	}
}
