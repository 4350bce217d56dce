package heuristic

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

func TestEntries(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []entry
	}{
		{
			name: "signature, first paragraph, body",
			text: ".. function:: total(xs)\n\n   Return the total.\n   Of xs.\n\n   More.\n\nAfter.",
			want: []entry{{start: 0, head: 4, end: 6, name: "total"}},
		},
		{
			name: "continued signatures and options belong to the head",
			text: ".. class:: dict(**kwarg)\n           dict(mapping)\n   :noindex:\n\n   Create a dictionary.\n\n   More.",
			want: []entry{{start: 0, head: 5, end: 7, name: "dict"}},
		},
		{
			name: "methods inside a class are entries of their own; admonitions are not",
			text: ".. py:class:: Pattern\n\n   Compiled.\n\n   .. method:: Pattern.split(s)\n\n      Split *s*.\n\n   .. note::\n\n      Aside.",
			want: []entry{{start: 0, head: 3, end: 11, name: "pattern"}, {start: 4, head: 7, end: 7, name: "split"}},
		},
		{
			name: "a directive that documents no object",
			text: ".. versionchanged:: 3.8\n   The start parameter.\n\n.. index:: single: sum",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(tc.text, "\n")
			assert.Equal(t, tc.want, entries(lines, buildTree(lines)))
		})
	}
}

// TestEntryHeadLiftsItsBody: the entry whose summary answers the goal comes whole, its
// example included, before another entry whose body repeats the goal's words in passing.
// Without the head's lift the other entry wins: the answering entry's block is its whole
// body, mostly an example without the goal's words.
func TestEntryHeadLiftsItsBody(t *testing.T) {
	text := `.. function:: total(iterable, /, start=0)

   Sum the numbers of an *iterable* from left to right and return the total.

   Example::

      >>> total([1, 2, 3])
      6
      >>> total([1, 2, 3], start=10)
      16
      >>> total([])
      0
      >>> total(range(5))
      10
      >>> total(x * x for x in range(4))
      14

.. function:: fmt(value, spec="")

   Convert a *value* to a formatted representation.

   The numbers of a list, the items of a tuple and the values of a mapping are
   formatted one by one, each by its own type's rules, so a list of numbers
   comes out as it would when each number was formatted on its own and the
   results were joined with commas.

.. function:: echo(value)

   Return *value*.`
	lines := strings.Split(text, "\n")
	find := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i
			}
		}
		t.Fatalf("no line holds %q", s)
		return -1
	}
	resp, err := New().Score(context.Background(), &engine.ScoreRequest{
		Lines: lines, Goal: "sum the numbers of a list", SourceType: engine.SourceDocs,
	})
	require.NoError(t, err)
	s := resp.Scores
	example := find("x * x")
	for _, other := range []string{"fmt(value", "Convert a *value*", "results were joined"} {
		assert.Greater(t, s[example], s[find(other)], "the answering entry's example against %q", other)
	}
}

// TestEntryNamedByAGoalWord: "Iterate over the rows of a table" asks for iter, whose summary
// holds none of the goal's words, before scan, whose summary holds "rows", a word that is in
// many of the page's summaries (as "list" and "number" are on functions.rst: three of four here). Without the
// name's share of the head the summary's word wins.
func TestEntryNamedByAGoalWord(t *testing.T) {
	text := `.. function:: scan(source, size)

   Read a file's records in chunks of *size* and return them as rows.

.. function:: iter(object)

   Return an iterator object.  *object* must be a collection which supports
   the iterable protocol.
`
	for i := range 40 {
		text += fmt.Sprintf("\n.. function:: f%d(x)\n\n   Return the %d values of *x*", i, i)
		if i%4 != 0 {
			text += " as rows"
		}
		text += ".\n"
	}
	lines := strings.Split(text, "\n")
	resp, err := New().Score(context.Background(), &engine.ScoreRequest{
		Lines: lines, Goal: "Iterate over the rows of a table", SourceType: engine.SourceDocs,
	})
	require.NoError(t, err)
	s := resp.Scores
	assert.Greater(t, s[4], s[0], "iter's signature against scan's")
	assert.Greater(t, s[6], s[2], "iter's summary against scan's")
}

func TestNameRelevance(t *testing.T) {
	tests := []struct {
		name, goal, entry string
		named             bool
	}{
		{name: "the name as written", goal: "sum a column", entry: "sum", named: true},
		{name: "an inflection of the name", goal: "sorting numbers", entry: "sort", named: true},
		{name: "a prose word that begins with the name", goal: "Summing across rows", entry: "sum", named: true},
		{name: "a longer word for a dictionary", goal: "invert a dictionary", entry: "dict", named: true},
		{name: "a name shorter than three letters", goal: "identity of an object", entry: "id"},
		{name: "a code word that begins with the name is another name", goal: "append to `listone`", entry: "list"},
		{name: "no goal word", goal: "Summing across rows", entry: "max"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := Analyze([]string{"one line", "another line"}, parseGoal(tc.goal))
			assert.Equal(t, tc.named, a.nameRelevance(tc.entry, 1) > 0)
		})
	}
}

// BenchmarkEntriesNested: 2,000 entries each nested in the one above without a blank line
// (2 MB, the engine's input bound), where every entry's head runs to the end of the text.
// Reading each line's blankness once per enclosing entry cost 1.7 s here.
func BenchmarkEntriesNested(b *testing.B) {
	lines := make([]string, 2000)
	for i := range lines {
		lines[i] = strings.Repeat(" ", i) + ".. method:: m(x)"
	}
	t := buildTree(lines)
	b.ReportAllocs()
	for b.Loop() {
		if len(entries(lines, t)) != len(lines) {
			b.Fatal("an entry was missed")
		}
	}
}

// reObjectDirective is what objectDirective reads, as the regular expression it replaced.
var reObjectDirective = regexp.MustCompile(`^\s*\.\.\s+(?:\w+:)?(?:function|method|class|attribute|data|exception|classmethod|staticmethod|decorator|decoratormethod|property|coroutinefunction|coroutinemethod|abstractmethod|awaitablefunction|describe|option|cmdoption|envvar)::\s*([A-Za-z_][\w.]*)?`)

var objectDirectiveCases = []string{
	".. function:: sum(iterable, /, start=0)",
	"   .. method:: dict.items()",
	".. py:class:: collections.OrderedDict([items])",
	".. c:function:: PyObject* PyList_New(Py_ssize_t len)",
	".. classmethod:: fromkeys(iterable[, value])",
	".. class:: _Private",
	".. data:: 3rd",
	".. envvar::PYTHONPATH",
	".. option::",
	".. function:::",
	"..function:: f",
	"..\tfunction::\tf.g.h(x)",
	".. note::",
	".. versionchanged:: 3.8",
	".. :function:: f",
	".. py::function:: f",
	".. a:b:function:: f",
	".. method:function:: f",
	".. function:x",
	".. Function:: f",
	".. function: f",
	".. functionx:: f",
	".. function:: $f",
	".. function:: é",
	".. function:: fé",
	" \f.. data:: X",
	".. é:function:: f",
	"",
	"..",
	".. ",
	"... function:: f",
}

func objectDirectiveByPattern(l string) (string, bool) {
	m := reObjectDirective.FindStringSubmatch(l)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// TestObjectDirectiveAgreesWithThePattern: the directive reader is the expression it
// replaced, written out; docs.dev scores the same bit for bit.
func TestObjectDirectiveAgreesWithThePattern(t *testing.T) {
	for _, l := range objectDirectiveCases {
		name, ok := objectDirective(l)
		wantName, want := objectDirectiveByPattern(l)
		assert.Equal(t, want, ok, "%q", l)
		assert.Equal(t, wantName, name, "%q", l)
	}
	name, ok := objectDirective(".. py:method:: Pool.map(func, iterable)")
	assert.True(t, ok)
	assert.Equal(t, "Pool.map", name)
}

func FuzzObjectDirective(f *testing.F) {
	for _, l := range objectDirectiveCases {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		name, ok := objectDirective(l)
		wantName, want := objectDirectiveByPattern(l)
		if ok != want || name != wantName {
			t.Fatalf("objectDirective(%q) = %q, %v; the pattern gives %q, %v", l, name, ok, wantName, want)
		}
	})
}
