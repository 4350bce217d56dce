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
		got, _ := d.misspelt(w, nil)
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
}

func BenchmarkDictionaryLoad(b *testing.B) {
	for b.Loop() {
		loadWords()
	}
}
