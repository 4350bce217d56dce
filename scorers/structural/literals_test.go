package structural

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuotedPathRanksItsLine: the goal quotes the path the fix changes; its words (usr,
// share, zoneinfo) are each spread over the file, the path whole is on one line, which now
// ranks with the best.
func TestQuotedPathRanksItsLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n\nstatic const char *zone_dir(void)\n{\n")
	for i := range 10 {
		fmt.Fprintf(&b, "  if (zoneinfo_share_%d (usr_zone, share_dir))\n    return usr_share_zoneinfo[%d];\n", i, i)
	}
	b.WriteString("  return \"/usr/share/zoneinfo\";\n}\n")
	lines := engine.SplitLines(b.String())
	resp := scoreCode(t, lines, "Look for time zones in /usr/share/zoneinfo when TZDIR is unset", "gtimezone.c")
	require.Empty(t, resp.Warnings)
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"/usr/share/zoneinfo"`) })
	require.Positive(t, at)
	assert.GreaterOrEqual(t, resp.Scores[at], literalFloor*maxOf(resp.Scores)-1e-9)
	for i, l := range lines {
		if strings.Contains(l, "usr_share_zoneinfo") {
			assert.Greater(t, resp.Scores[at], resp.Scores[i], "line %d %q", i+1, l)
		}
	}
}

func TestGoalLiterals(t *testing.T) {
	tests := []struct {
		name string
		goal string
		want []string
	}{
		{"path, option and key", "fix(viewer): read `/usr/share/zoneinfo` with --tz-dir and exist_ok=True.", []string{"/usr/share/zoneinfo", "--tz-dir", "exist_ok=True"}},
		{"header and file name", `Transfer-Encoding sent twice; see "config.toml".`, []string{"Transfer-Encoding", "config.toml"}},
		{"prose, links, versions and issues left out", "and/or a-b x.y https://x.org/a/b www.example 1.2.3 v2.0-rc1 #7810", nil},
		{"repeated once", "jeeves.cli then jeeves.cli", []string{"jeeves.cli"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, goalLiterals(tt.goal))
		})
	}
}

func TestLiftLiterals(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		comment []bool
		scores  []float64
		want    []float64
	}{
		{
			name:   "one line lifted toward the best",
			lines:  []string{"a", `p = "/var/run"`, "b"},
			scores: []float64{1, 0.2, 0.5},
			want:   []float64{1, literalFloor, 0.5},
		},
		{
			name:   "a line above the floor keeps its score",
			lines:  []string{"a", `p = "/var/run"`},
			scores: []float64{0.5, 1},
			want:   []float64{0.5, 1},
		},
		{
			name:    "comments are not lifted",
			lines:   []string{"a", "// see /var/run", `p = "/var/run"`},
			comment: []bool{false, true, false},
			scores:  []float64{1, 0.1, 0.2},
			want:    []float64{1, 0.1, literalFloor},
		},
		{
			name:   "a literal on too many lines tells none apart",
			lines:  []string{"a", "/var/run", "/var/run", "/var/run"},
			scores: []float64{1, 0.1, 0.2, 0.3},
			want:   []float64{1, 0.1, 0.2, 0.3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := slices.Clone(tt.scores)
			liftLiterals("move the pid file out of /var/run", tt.lines, s, tt.comment)
			assert.InDeltaSlice(t, tt.want, s, 1e-9)
		})
	}
}

// BenchmarkLiftLiterals: the lift on a 10,000-line file against a goal quoting 200 literals
// none of which the file holds (every literal costs a full look through the file).
func BenchmarkLiftLiterals(b *testing.B) {
	lines := synthFile("go", 10000)
	var goal strings.Builder
	for i := range 200 {
		fmt.Fprintf(&goal, "see `pkg/sub_%d/file_%d.go` and ", i, i)
	}
	scores := make([]float64, len(lines))
	b.ReportAllocs()
	for b.Loop() {
		liftLiterals(goal.String(), lines, scores, nil)
	}
}

// TestCodeLinesHoldingAgreesWithContains: both searches (one per literal up to fewLiterals,
// the one-pass scan past them) find, for every literal, the code lines strings.Contains
// finds, first ones first, at most literalLines+1 of them.
func TestCodeLinesHoldingAgreesWithContains(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := randomWords(rng, "ab/_.-c")
	for range 200 {
		// Lines from a small pool, so a literal cut from one is on several, past the cap.
		pool := []string{word(rng.IntN(40)), word(rng.IntN(40)), word(rng.IntN(40))}
		lines := make([]string, rng.IntN(30))
		comment := make([]bool, len(lines))
		for i := range lines {
			lines[i] = word(rng.IntN(40))
			if rng.IntN(2) == 0 {
				lines[i] = pool[rng.IntN(len(pool))]
			}
			comment[i] = rng.IntN(5) == 0
		}
		var lits []string
		for range 1 + rng.IntN(3*fewLiterals) {
			lit := word(5 + rng.IntN(4))
			if p := pool[rng.IntN(len(pool))]; rng.IntN(2) == 0 && len(p) >= 8 {
				at := rng.IntN(len(p) - 5)
				lit = p[at : at+5]
			}
			lits = append(lits, lit)
		}
		got := codeLinesHolding(lits, lines, comment)
		for k, lit := range lits {
			var want []int
			for i, l := range lines {
				if !comment[i] && strings.Contains(l, lit) && len(want) <= literalLines {
					want = append(want, i)
				}
			}
			require.Equal(t, want, got[k], "literal %q in %q", lit, lines)
		}
	}
}

// randomWords returns a generator of words of n bytes drawn from alphabet: a small alphabet
// makes the overlaps one-pass searches must get right.
func randomWords(rng *rand.Rand, alphabet string) func(n int) string {
	return func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
}

// TestCodeLinesHoldingGivesUp: past maxLiteralChecks comparisons the search finds nothing
// at all, not the lines it had reached.
func TestCodeLinesHoldingGivesUp(t *testing.T) {
	var lits []string
	for i := range maxLiterals {
		lits = append(lits, fmt.Sprintf("aaaa_aaaa_x%d", i))
	}
	lines := []string{"f(\"aaaa_aaaa_x7\")"} // found first, before the budget runs out
	// Each such line holds the literals' head 40 times, each a comparison with every literal.
	for range maxLiteralChecks/(maxLiterals*40) + 1 {
		lines = append(lines, strings.Repeat("aaaa_", 40))
	}
	got := codeLinesHolding(lits, lines, nil)
	require.Len(t, got, len(lits))
	for k := range got {
		assert.Empty(t, got[k], "literal %d", k)
	}
	found := codeLinesHolding(lits, lines[:1], nil)
	assert.Equal(t, []int{0}, found[7], "within the budget it is found")
}

// BenchmarkLiftLiteralsSharedHead: the one-pass search's worst case, literals that share
// their first four bytes with most of the file's text.
func BenchmarkLiftLiteralsSharedHead(b *testing.B) {
	lines := make([]string, 10000)
	for i := range lines {
		lines[i] = strings.Repeat("aaaa_", 40)
	}
	var goal strings.Builder
	for i := range maxLiterals {
		fmt.Fprintf(&goal, "`aaaa_aaaa_x%d` ", i)
	}
	scores := make([]float64, len(lines))
	b.SetBytes(int64(len(strings.Join(lines, "\n"))))
	for b.Loop() {
		liftLiterals(goal.String(), lines, scores, nil)
	}
}

// liftLiterals is the literals' lift for a goal read afresh, not through its query's memo.
func liftLiterals(goal string, lines []string, s []float64, comment []bool) {
	liftLiteralsOf(goalLiterals(goal), lines, s, comment)
}
