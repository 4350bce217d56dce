package tokenizer

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

var benchLines = []int{100, 1000, 10000, 100000}

// codeText returns n lines of real source code (the bench cases' Python, Go, JS and
// TypeScript files, concatenated) or, without ../shared/bench, generated code.
func codeText(b *testing.B, n int) string {
	b.Helper()
	var lines []string
	if benchDir(b) != "" {
		for _, file := range []string{"code.dev.jsonl.gz", "commits.dev.jsonl.gz"} {
			for _, text := range benchTexts(b, file, 1, 1<<30) {
				lines = append(lines, strings.Split(strings.TrimSuffix(text, "\n"), "\n")...)
				if len(lines) >= n {
					return strings.Join(lines[:n], "\n") + "\n"
				}
			}
		}
	}
	r := newRand(29)
	for len(lines) < n {
		lines = append(lines, strings.Split(randomText(r, 100), "\n")...)
	}
	return strings.Join(lines[:n], "\n") + "\n"
}

// fresh returns an encoder sharing e's ranks with empty caches.
func (e *Encoder) fresh() *Encoder {
	c := *e
	c.segs = newCountCache(segmentCacheBytes, cacheShards)
	c.pieces = newCountCache(pieceCacheBytes, cacheShards)
	c.texts = newExtraCache(textCacheBytes, textCacheShards)
	return &c
}

// BenchmarkCount counts a whole text: cold (empty caches, every segment new), pieces
// (new lines made of known words, as a new file of a codebase already read: every
// segment is counted, its pieces looked up), lines (known lines in a new text, as a
// pruned output: a lookup per segment) and warm (the same text again: one lookup).
func BenchmarkCount(b *testing.B) {
	for _, n := range benchLines {
		text := codeText(b, n)
		for _, cache := range []string{"cold", "pieces", "lines", "warm"} {
			for _, name := range encodingNames {
				b.Run(fmt.Sprintf("lines=%d/cache=%s/enc=%s", n, cache, name), func(b *testing.B) {
					e := loadT(b, name).fresh()
					want := e.Count(text)
					b.SetBytes(int64(len(text)))
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						c := e
						switch cache {
						case "cold":
							b.StopTimer()
							c = e.fresh()
							b.StartTimer()
						case "pieces":
							b.StopTimer()
							c = e.fresh()
							c.pieces = e.pieces
							b.StartTimer()
						case "lines":
							b.StopTimer()
							c.texts = newExtraCache(textCacheBytes, textCacheShards)
							b.StartTimer()
						}
						if got := c.Count(text); got != want {
							b.Fatalf("count %d, want %d", got, want)
						}
					}
				})
			}
		}
	}
}

// BenchmarkCountLines is the engine's count of an input: Count(text) and every line's
// CountLine. warm is the same text again (an agent re-reading a file), priced from the prices
// kept with it; cold has every cache empty; new is a text whose every line is new to caches
// that are full of other texts' lines (a server that has counted many files), so that every
// lookup misses in tables far larger than the processor's caches.
func BenchmarkCountLines(b *testing.B) {
	for _, n := range benchLines[:3] {
		text := codeText(b, n)
		for _, cache := range []string{"cold", "warm", "new"} {
			b.Run(fmt.Sprintf("lines=%d/cache=%s/enc=%s", n, cache, CL100K), func(b *testing.B) {
				e := loadT(b, CL100K).fresh()
				want, _ := e.CountLines(text)
				variant := 0
				if cache == "new" {
					// Fill the caches: the segment cache holds about 30 MiB of lines.
					for filled := 0; filled < 3*segmentCacheBytes/2; filled += len(text) * 2 {
						variant++
						e.CountLines(numberLines(text, variant))
					}
				}
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					c, t := e, text
					switch cache {
					case "cold":
						b.StopTimer()
						c = e.fresh()
						b.StartTimer()
					case "new":
						b.StopTimer()
						variant++
						t = numberLines(text, variant)
						b.StartTimer()
					}
					if got, _ := c.CountLines(t); cache != "new" && got != want {
						b.Fatalf("count %d, want %d", got, want)
					}
				}
			})
		}
	}
}

// numberLines returns text with " // k" after each of its lines: every line new for each k.
func numberLines(text string, k int) string {
	suffix := " // " + strconv.Itoa(k)
	var b strings.Builder
	b.Grow(len(text) + strings.Count(text, "\n")*len(suffix))
	for line := range strings.Lines(text) {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(body)
		b.WriteString(suffix)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// BenchmarkPriceText does what the engine does on a new text: count every line,
// then the whole text (which then hits the lines' cache entries).
func BenchmarkPriceText(b *testing.B) {
	for _, n := range benchLines[:3] {
		text := codeText(b, n)
		lines := strings.Split(text, "\n")
		for _, name := range encodingNames {
			b.Run(fmt.Sprintf("lines=%d/cache=cold/enc=%s", n, name), func(b *testing.B) {
				base := loadT(b, name)
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					e := base.fresh()
					b.StartTimer()
					for _, l := range lines {
						e.Count(l)
					}
					e.Count(text)
				}
			})
		}
	}
}

// BenchmarkTiktokenGo is the baseline: tiktoken-go v0.1.8's EncodeOrdinary.
func BenchmarkTiktokenGo(b *testing.B) {
	for _, n := range benchLines {
		text := codeText(b, n)
		for _, name := range encodingNames {
			b.Run(fmt.Sprintf("lines=%d/enc=%s", n, name), func(b *testing.B) {
				tk := refEncoder(b, name)
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					tk.EncodeOrdinary(text)
				}
			})
		}
	}
}
