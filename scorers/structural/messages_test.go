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

// TestQuotedMessageRanksItsStatement: the goal quotes the message one of two near-identical
// raise statements prints. On words alone both score the same and the first wins the tie;
// the statement whose literal text the goal holds whole now ranks first.
func TestQuotedMessageRanksItsStatement(t *testing.T) {
	src := `class BaseTimeSeries(QTable):

    def _check_required_columns(self):
        if not self._required_columns_enabled:
            return
        plural = 's' if len(required_columns) > 1 else ''
        if not self._required_columns_relax and len(self.colnames) == 0:
            raise ValueError("{} object is invalid - expected '{}' "
                             "as the first column{} but time series has no columns"
                             .format(self.__class__.__name__, required_columns[0], plural))
        elif self.colnames[:len(required_columns)] != required_columns:
            raise ValueError("{} object is invalid - expected '{}' "
                             "as the first column{} but found '{}'"
                             .format(self.__class__.__name__, required_columns[0], plural, self.colnames[0]))
`
	lines := engine.SplitLines(src)
	goal := "TimeSeries: misleading exception when required column check fails.\n" +
		"The actual exception message is confusing:\n" +
		"`ValueError: TimeSeries object is invalid - expected 'time' as the first columns but found 'time'`"
	resp := scoreCode(t, lines, goal, "core.py")
	require.Empty(t, resp.Warnings)
	found := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "but found") })
	require.Positive(t, found)
	for _, at := range []int{found - 1, found} { // the statement's two literal lines
		for i, l := range lines {
			if i != found-1 && i != found {
				assert.Greater(t, resp.Scores[at], resp.Scores[i], "line %d %q over line %d %q", at+1, lines[at], i+1, l)
			}
		}
	}
}

func TestSplitFormat(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"printf verbs", "cannot open %s: %-10d bytes read so far", []string{"cannot open", "bytes read so far"}},
		{"python named", "bad value %(name)r for the field", []string{"bad value", "for the field"}},
		{"braces", "{} object is invalid - expected '{}' ", []string{"object is invalid - expected '"}},
		{"template", "no route to ${host} from this server", []string{"no route to", "from this server"}},
		{"escapes", `line one\nline two`, []string{"line one", "line two"}},
		{"lowered", "File Not Found", []string{"file not found"}},
		{"short pieces dropped", "%s: %s", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range splitFormat(tt.content, 0, nil, minPiece, 0) {
				got = append(got, p.text)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLiftMessages(t *testing.T) {
	const goal = "Error: could not read the config file at /etc/x.conf (permission denied)"
	const top = messageTop
	tests := []struct {
		name    string
		lines   []string
		comment []bool
		scores  []float64
		want    []float64
	}{
		{
			name:   "a statement the goal quotes whole ranks first",
			lines:  []string{"a", `die("could not read the config file at %s", path);`, "b"},
			scores: []float64{1, 0.2, 0.5},
			want:   []float64{top, 1, 0.5 * top},
		},
		{
			name:   "a statement quoted in part is lifted toward the best",
			lines:  []string{"a", `die("could not read the config file at %s: %s", path, "no such entry here");`, "b"},
			scores: []float64{1, 0.2, 0.5},
			want:   []float64{1, literalFloor, 0.5},
		},
		{
			name: "the statement spans its lines",
			lines: []string{"a", `raise IOError("could not read the config file at {} "`,
				`    "(permission denied)".format(path))`, "b"},
			scores: []float64{1, 0.2, 0.1, 0.5},
			want:   []float64{top, 1, 0.1 * top, 0.5 * top},
		},
		{
			name:    "comments are not lifted",
			lines:   []string{"a", `// "could not read the config file at %s"`},
			comment: []bool{false, true},
			scores:  []float64{1, 0.1},
			want:    []float64{1, 0.1},
		},
		{
			name: "a message in three statements tells none apart",
			lines: []string{"a", `die("could not read the config file at %s", p);`,
				`die("could not read the config file at %s", q);`, `die("could not read the config file at %s", r);`},
			scores: []float64{1, 0.1, 0.2, 0.3},
			want:   []float64{1, 0.1, 0.2, 0.3},
		},
		{
			name:   "two words are prose, not a message",
			lines:  []string{"a", `die("permission denied")`},
			scores: []float64{1, 0.1},
			want:   []float64{1, 0.1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := slices.Clone(tt.scores)
			liftMessages(goal, tt.lines, s, tt.comment)
			assert.InDeltaSlice(t, tt.want, s, 1e-9)
		})
	}
}

func TestStatementStarts(t *testing.T) {
	lines := []string{
		`x = f("a (",`, // the ( in the literal does not count
		`      b)`,     // closes f(
		`y = [1,  # (`, // the comment's ( does not count
		`     2]`,      // closes [
		`z = 3`,
	}
	assert.Equal(t, []int{0, 0, 2, 2, 4}, statementStarts(lines, nil))
}

// TestInGoalAgreesWithContains: the search, direct for the first pieces and through the
// suffix array past fewDistinct of them, keeps the pieces strings.Contains finds.
func TestInGoalAgreesWithContains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := randomWords(rng, "ab c")
	for range 300 {
		g := word(rng.IntN(200))
		ps, want := []piece{}, []piece{}
		for k := range 1 + rng.IntN(3*fewDistinct) {
			p := piece{text: word(12 + rng.IntN(6)), line: k}
			if k%2 == 0 && len(g) > 20 {
				at := rng.IntN(len(g) - 12)
				p.text = g[at : at+12]
			}
			ps = append(ps, p)
			if strings.Contains(g, p.text) {
				want = append(want, p)
			}
		}
		assert.Equal(t, want, inGoal(&goalText{g: g}, ps), "goal %q", g)
	}
}

// BenchmarkLiftMessages: the lift on a 10,000-line file with a message literal on most
// statements, against a long goal that quotes none of them.
func BenchmarkLiftMessages(b *testing.B) {
	lines := synthFile("go", 10000)
	var goal strings.Builder
	for i := range 400 {
		fmt.Fprintf(&goal, "step %d failed with an unexpected error while reading the input; ", i)
	}
	scores := make([]float64, len(lines))
	b.ReportAllocs()
	for b.Loop() {
		liftMessages(goal.String(), lines, scores, nil)
	}
}

// liftMessages is the messages' lift for a goal read afresh, not through its query's memo.
func liftMessages(goal string, lines []string, s []float64, comment []bool) {
	liftMessagesIn(newGoalText(goal), lines, s, comment)
}
