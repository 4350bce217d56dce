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
	q := make(unitQueue, 0, len(candidates))
	for _, u := range candidates {
		if eligible(u) {
			q = append(q, queued{unit: u, prio: s.priority(u)})
		}
	}
	q.init()
	for len(q) > 0 {
		top := q.pop()
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
				q.push(queued{unit: nb, prio: s.priority(nb), stamp: stamp[nb]})
			}
		}
	}
}

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

func (s *selection) priority(u int) float64 {
	sp := s.units[u]
	cost := sp.cost + s.markerDelta(u)*s.markerCost
	v := sp.score * sp.score * sp.score // score^ScorePower, without math.Pow in the hot loop
	if cost <= 0 {
		return math.Inf(1) // keeping it saves tokens
	}
	return v / float64(cost)
}

type queued struct {
	unit  int
	prio  float64
	stamp int32
}

// unitQueue is a binary max-heap of queued units (highest priority, then lowest index, first),
// typed rather than container/heap: it is the hot loop of selection.
type unitQueue []queued

func (q unitQueue) less(i, j int) bool {
	if q[i].prio != q[j].prio {
		return q[i].prio > q[j].prio
	}
	return q[i].unit < q[j].unit
}

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
