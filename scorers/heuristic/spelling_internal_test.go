package heuristic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDictionary(t *testing.T) {
	d := dictionary()
	assert.Greater(t, len(d), 100_000, "the embedded word list")
	for _, w := range []string{"occurred", "receive", "colour", "color", "reference"} {
		assert.True(t, d.known(w), w)
	}
	for _, w := range []string{"ocurred", "recieve", "refrence"} {
		assert.False(t, d.known(w), w)
		got, _, _ := d.misspelt(w, nil)
		assert.True(t, got, w)
	}
}

func TestKnownInflections(t *testing.T) {
	d := words{"complete": {}, "initializer": {}, "run": {}}
	for _, w := range []string{"complete", "completes", "completed", "completely", "initializers"} {
		assert.True(t, d.known(w), w)
	}
	assert.True(t, d.known("runs"), "a three-letter stem")
	assert.False(t, d.known("completo"))
	assert.False(t, d.known("ring"), "a stem under three letters is not taken: r+ing")
	slips := words{"occur": {}, "occurred": {}, "open": {}}
	assert.False(t, slips.known("occured"), "the list doubles the stem's last letter: a slip")
	assert.True(t, slips.known("opened"), "no doubled form listed: an inflection")
}

func BenchmarkDictionaryLoad(b *testing.B) {
	for b.Loop() {
		loadWords()
	}
}

// TestMisspeltCodeReadsProseOnly: in code, a word counts in comments, string literals and
// trailing comments, not as a name.
func TestMisspeltCodeReadsProseOnly(t *testing.T) {
	lines := []string{
		"int recieve = 0;",                 // 0: a name
		`puts("data adressed");`,           // 1: a literal
		"x = 1; // the buffer has occured", // 2: a trailing comment
		"y = 2  # the seperate buffer",     // 3: a trailing # comment
		"/* wait untill the end */",        // 4: a comment line
		"#define BEGINING 1",               // 5: a directive, not a comment
		`s = 'definately'`,                 // 6: a single-quoted literal
	}
	assert.Equal(t, []int{1, 2, 3, 4, 6}, misspeltLines(lines, true))
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6}, misspeltLines(lines, false), "docs: every word is prose")
}

func TestProseSpans(t *testing.T) {
	l := `f("a \"b\" c", 'd') // e`
	assert.Equal(t, []span{{3, 12}, {16, 17}, {20, len(l)}}, proseSpans(l, nil))
	assert.Empty(t, proseSpans("#include <stdio.h>", nil))
	assert.Equal(t, []span{{3, 5}}, proseSpans(`x("ab`, nil), "an unclosed literal runs to the line's end")
}
