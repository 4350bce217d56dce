package engine

import (
	"math"
)

// span is a unit of selection: lines [start, end) kept or cut together.
type span struct {
	start, end int
	score      float64
	prot       uint8
	cost       int
}

// selection decides which lines survive. It works on units so fences and ⟦NO_PRUNE⟧
// regions are never split, and it prices markers so a budget buys few, contiguous runs.
type selection struct {
	n          int
	units      []span
	unitOf     []int
	keep       []bool // per line
	threshold  float64
	minKept    int
	budget     int // 0: none
	markerCost int // 0 when markers are not inserted
	lineCost   []int
}

func newSelection(scores []float64, prot []uint8, joinPrev []bool, lineCost []int) *selection {
	n := len(scores)
	s := &selection{n: n, unitOf: make([]int, n), keep: make([]bool, n), lineCost: lineCost}
	units := n
	for i := 1; i < n; i++ {
		if joinPrev[i] {
			units--
		}
	}
	s.units = make([]span, 0, units)
	for i := 0; i < n; i++ {
		if i == 0 || !joinPrev[i] {
			s.units = append(s.units, span{start: i, end: i})
		}
		u := &s.units[len(s.units)-1]
		u.end = i + 1
		u.score = math.Max(u.score, scores[i])
		u.prot = max(u.prot, prot[i])
		u.cost += lineCost[i]
		s.unitOf[i] = len(s.units) - 1
	}
	return s
}

// minKeptFor turns the hard constraints into a minimum number of kept lines.
func minKeptFor(n int, o Options) int {
	maxPruned := int(math.Floor(o.MaxPruneRatio*float64(n) + 1e-9))
	return max(n-maxPruned, min(o.MinKeepLines, n))
}

func (s *selection) setUnit(u int, keep bool) {
	for i := s.units[u].start; i < s.units[u].end; i++ {
		s.keep[i] = keep
	}
}

func (s *selection) keptLines() int {
	k := 0
	for _, v := range s.keep {
		if v {
			k++
		}
	}
	return k
}

// keptAt treats positions outside the text as kept, so runs are counted only inside it.
func (s *selection) keptAt(i int) bool { return i < 0 || i >= s.n || s.keep[i] }

// markerDelta is the change in the number of cut runs if unit u, now cut, were kept.
func (s *selection) markerDelta(u int) int {
	l, r := s.keptAt(s.units[u].start-1), s.keptAt(s.units[u].end)
	switch {
	case l && r:
		return -1
	case l || r:
		return 0
	}
	return 1
}

// estimate is the estimated token cost of the current output.
func (s *selection) estimate() int {
	total, runs := 0, 0
	for i := 0; i < s.n; i++ {
		if s.keep[i] {
			total += s.lineCost[i]
		} else if i == 0 || s.keep[i-1] {
			runs++
		}
	}
	return total + runs*s.markerCost
}

// run chooses the kept lines.
func (s *selection) run() {
	order := make([]int, 0, len(s.units))
	for u, sp := range s.units {
		if sp.prot == protHard || (s.budget == 0 && sp.prot == protRule) {
			s.setUnit(u, true)
			continue
		}
		order = append(order, u)
	}
	if s.budget == 0 {
		for _, u := range order {
			if s.units[u].score >= s.threshold {
				s.setUnit(u, true)
			}
		}
	} else {
		s.budgetSelect(order)
		// Bridging gaps cheaper than their marker frees budget; spend it once more.
		if s.fillCheapGaps() {
			s.budgetSelect(order)
			s.fillCheapGaps()
		}
	}
	// Hard constraints: restore cut units until enough lines are kept.
	s.restoreTo(order)
	s.fillCheapGaps()
}

// ruleCut reports whether a rule-protected line is cut. It reads the selection as it stands,
// so asked after the last change (the exact-budget trim cuts after run) it cannot miss one.
func (s *selection) ruleCut() bool {
	for _, sp := range s.units {
		if sp.prot == protRule && !s.keep[sp.start] {
			return true
		}
	}
	return false
}

// fillCheapGaps keeps every cut run that costs no more tokens than the marker replacing it,
// and reports whether it kept any.
func (s *selection) fillCheapGaps() bool {
	if s.markerCost == 0 {
		return false
	}
	filled := false
	for i := 0; i < s.n; {
		if s.keep[i] {
			i++
			continue
		}
		j, cost := i, 0
		for j < s.n && !s.keep[j] {
			cost += s.lineCost[j]
			j++
		}
		// A run at either end of the text needs its marker too.
		if cost <= s.markerCost {
			for k := i; k < j; k++ {
				s.keep[k] = true
			}
			filled = true
		}
		i = j
	}
	return filled
}

// dropLowest cuts the first kept unit in dropsBefore's order that may be cut without
// breaking the hard constraints and whose cut saves tokens; it reports whether one was
// found. A unit whose lines cost no more than the marker that would replace them is never
// cut: when floors keep the output over its budget, cutting lone blank lines one by one put
// a 40-token marker in place of each and made the output larger than the text.
func (s *selection) dropLowest() bool {
	kept := s.keptLines()
	best := -1
	for u, sp := range s.units {
		if !s.keep[sp.start] || sp.prot == protHard || kept-(sp.end-sp.start) < s.minKept || !s.cutSaves(u) {
			continue
		}
		if best < 0 || dropsBefore(sp, s.units[best]) {
			best = u
		}
	}
	if best < 0 {
		return false
	}
	s.setUnit(best, false)
	return true
}

// cutSaves reports whether cutting unit u, now kept, lowers the estimated cost: its lines'
// tokens against the markers the cut adds (one between two kept neighbours, none beside one
// cut run, one fewer when it joins two).
func (s *selection) cutSaves(u int) bool {
	sp := s.units[u]
	cost := 0
	for i := sp.start; i < sp.end; i++ {
		cost += s.lineCost[i]
	}
	added := 1
	if !s.keptAt(sp.start - 1) {
		added--
	}
	if !s.keptAt(sp.end) {
		added--
	}
	return cost > added*s.markerCost
}

// dropsBefore orders dropLowest's candidates: unprotected units before rule-protected ones
// (cutting one of those costs a warning), then the lowest score, then the latest.
func dropsBefore(a, b span) bool {
	if a.prot != b.prot {
		return a.prot < b.prot
	}
	if a.score != b.score {
		return a.score < b.score
	}
	return a.start > b.start
}
