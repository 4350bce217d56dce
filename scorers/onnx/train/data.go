// Package train trains the line-features relevance model (models/linerank) on labelled
// benchmark cases, cross-validates it through the real engine, and exports it to ONNX with
// its manifest and model card. Training is deterministic: same cases and Config, same bytes.
//
// It imports engine, benchmarks, tokenizer, the heuristic scorer, and the pure-Go parts of
// scorers/onnx (linefeat, onnxpb, manifest); never the onnxruntime binding, so it builds and
// runs without cgo's runtime library.
package train

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/mcp-pruner/mcp-pruner/benchmarks"
	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/onnx/linefeat"
)

// caseData is one case reduced to the rows training looks at: every gold line, the hardest
// negatives (highest heuristic or structural score) and a uniform sample of the other negatives, each
// sampled negative weighted by how many lines it stands for.
type caseData struct {
	id, group, file string
	x               []float32 // rows×F
	y               []float32 // 1 for gold
	w               []float32 // sampling weight
	cost            []float32 // the line's token cost as the engine prices it
	pos             int
	kind            int // index into linefeat.Kinds, -1 for an empty case
}

func (c *caseData) rows() int { return len(c.y) }

// reGroupTail strips what distinguishes cases of the same source: a SWE-bench task number,
// a commit hash (and the file build-commits adds after it), a log file, a cidiff run number.
var reGroupTail = regexp.MustCompile(`(__.*$|@[0-9a-f]{7,}(/.*)?$|/failed/.*$|/passed/.*$|_\d+$)`)

// GroupOf is the cross-validation group of a case: its repository or source, so folds never
// share a repository (documentation cases are grouped by page).
func GroupOf(c *benchmarks.Case) string {
	if c.SourceType == engine.SourceDocs && c.Path != "" {
		return "docs:" + c.Path
	}
	return reGroupTail.ReplaceAllString(c.ID, "")
}

// Folds assigns each case a fold in [0, k): groups of each data file are dealt, largest
// first, to the fold holding the fewest cases of that file, so every fold sees every source
// type and no group is split.
func Folds(cases []benchmarks.Case, k int) []int {
	type grp struct {
		file, name string
		members    []int
	}
	byKey := map[string]*grp{}
	var groups []*grp
	for i := range cases {
		c := &cases[i]
		key := c.File + "\x00" + GroupOf(c)
		g := byKey[key]
		if g == nil {
			g = &grp{file: c.File, name: GroupOf(c)}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, i)
	}
	sort.SliceStable(groups, func(a, b int) bool {
		ga, gb := groups[a], groups[b]
		if ga.file != gb.file {
			return ga.file < gb.file
		}
		if len(ga.members) != len(gb.members) {
			return len(ga.members) > len(gb.members)
		}
		return ga.name < gb.name
	})
	fold := make([]int, len(cases))
	load := map[string][]int{}
	for _, g := range groups {
		l := load[g.file]
		if l == nil {
			l = make([]int, k)
			load[g.file] = l
		}
		best := 0
		for f := 1; f < k; f++ {
			if l[f] < l[best] {
				best = f
			}
		}
		l[best] += len(g.members)
		for _, i := range g.members {
			fold[i] = best
		}
	}
	return fold
}

// sampleCase computes the features of c and keeps the training rows.
func sampleCase(ctx context.Context, c *benchmarks.Case, cfg *Config, tokens engine.TokenCounter) (*caseData, error) {
	lines := engine.SplitLines(c.Text)
	m, err := linefeat.Compute(ctx, &engine.ScoreRequest{Lines: lines, Goal: c.GoalHint, SourceType: c.SourceType, Path: c.Path})
	if err != nil {
		return nil, err
	}
	n := m.N
	gold := make([]bool, n)
	for _, g := range c.GoldLines {
		if g < 1 || g > n {
			return nil, fmt.Errorf("case %s: gold line %d outside 1..%d", c.ID, g, n)
		}
		gold[g-1] = true
	}
	heur, strc := columnOf("heuristic"), columnOf("structural")
	// Hard negatives: the lines either base scorer ranks highest.
	hardness := func(i int) float32 { r := m.Row(i); return max(r[heur], r[strc]) }
	var pos, neg []int
	for i := 0; i < n; i++ {
		if gold[i] {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	sort.SliceStable(neg, func(a, b int) bool { return hardness(neg[a]) > hardness(neg[b]) })
	hard := neg[:min(len(neg), cfg.HardNegatives)]
	rest := append([]int(nil), neg[len(hard):]...)
	h := fnv.New64a()
	h.Write([]byte(c.ID))
	rng := rand.New(rand.NewPCG(cfg.Seed, h.Sum64()))
	rng.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	random := rest[:min(len(rest), cfg.RandomNegatives)]
	randW := float32(1)
	if len(random) > 0 {
		randW = float32(len(rest)) / float32(len(random))
	}
	d := &caseData{id: c.ID, group: GroupOf(c), file: c.File, pos: len(pos), kind: -1}
	if n > 0 {
		d.kind = linefeat.KindOf(m.Row(0))
	}
	add := func(i int, y, w float32) {
		d.x = append(d.x, m.Row(i)...)
		d.y = append(d.y, y)
		d.w = append(d.w, w)
		d.cost = append(d.cost, float32(lineCost(tokens, lines[i])))
	}
	for _, i := range pos {
		add(i, 1, 1)
	}
	for _, i := range hard {
		add(i, 0, 1)
	}
	sort.Ints(random)
	for _, i := range random {
		add(i, 0, randW)
	}
	return d, nil
}

// sampleAll samples every case, cfg.Workers at a time; the result is in case order.
func sampleAll(ctx context.Context, cases []benchmarks.Case, cfg *Config, tokens engine.TokenCounter) ([]*caseData, error) {
	out := make([]*caseData, len(cases))
	errs := make([]error, len(cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, cfg.Workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i], errs[i] = sampleCase(ctx, &cases[i], cfg, tokens)
			}
		}()
	}
	for i := range cases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func columnOf(name string) int {
	for i, n := range linefeat.Names {
		if n == name {
			return i
		}
	}
	panic("train: no feature " + name)
}

// fileLabel turns "code.dev" into "code".
func fileLabel(file string) string {
	f, _, _ := strings.Cut(file, ".")
	return f
}

// lineCost is what keeping a line costs the engine: the exact count of the line with its
// newline when the counter can say (engine.LineCounter, as the tokenizer can), else its
// tokens plus one. Without a counter, four bytes count as a token.
func lineCost(tokens engine.TokenCounter, l string) int {
	if tokens == nil {
		return len(l)/4 + 1
	}
	if lc, ok := tokens.(engine.LineCounter); ok {
		return lc.CountLine(l)
	}
	return tokens.Count(l) + 1
}
