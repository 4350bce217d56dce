package structural

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/lang/*.txtar")

func TestContract(t *testing.T) {
	scorertest.Run(t, func() engine.Scorer { return New() })
}

// archive is a minimal txtar: a comment, then "-- name --" sections.
type archive struct {
	comment  string
	sections []section
}

type section struct{ name, data string }

func parseArchive(b []byte) archive {
	var a archive
	cur := -1
	for _, line := range strings.SplitAfter(string(b), "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			a.sections = append(a.sections, section{name: t[3 : len(t)-3]})
			cur = len(a.sections) - 1
			continue
		}
		if cur < 0 {
			a.comment += line
		} else {
			a.sections[cur].data += line
		}
	}
	return a
}

func (a archive) get(name string) string {
	for _, s := range a.sections {
		if s.name == name {
			return s.data
		}
	}
	return ""
}

func (a *archive) set(name, data string) {
	for i := range a.sections {
		if a.sections[i].name == name {
			a.sections[i].data = data
			return
		}
	}
	a.sections = append(a.sections, section{name, data})
}

func (a archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, s := range a.sections {
		fmt.Fprintf(&b, "-- %s --\n%s", s.name, s.data)
	}
	return b.Bytes()
}

func fields(s string) []string { return strings.Fields(s) }

// TestLanguages runs one real-world-shaped file per language: the units the goal names must
// keep their best line at the default threshold and no line far below it, and outrank the
// unrelated ones on average, with no fallback; the outline and the kept lines are compared
// with the golden section (-update rewrites it).
func TestLanguages(t *testing.T) {
	files, err := filepath.Glob("testdata/lang/*.txtar")
	require.NoError(t, err)
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, path, lines := readLangCase(t, f)
			st := engine.SourceCode
			if name == "markdown" || name == "rst" {
				st = engine.SourceDocs
			}
			lang := s.langs.detect("", path, lines)
			require.Equal(t, name, lang, "language of %s", path)
			seen[lang] = true
			resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: a.get("goal"), SourceType: st, Path: path})
			require.NoError(t, err)
			require.Empty(t, resp.Warnings, "structure must be used, not the fallback")
			require.Len(t, resp.Scores, len(lines))

			o := s.outlineOf(t, lang, lines)
			wantMean := 1.0
			for _, w := range fields(a.get("want")) {
				u, ok := o.find(w)
				require.True(t, ok, "no unit named %q in\n%s", w, o.dump(lines))
				wantMean = min(wantMean, meanScore(lines, resp.Scores, u.start, u.end))
				if st != engine.SourceCode {
					continue
				}
				best := maxOf(resp.Scores[u.start:u.end])
				assert.GreaterOrEqual(t, best, Threshold, "wanted unit %q has no line kept at the default threshold", w)
				if s.langs.byName[lang].keys {
					// A configuration is read by key paths (keys.go, TestConfigPaths): the
					// unit's key is kept, its lines rank by what they hold.
					assert.GreaterOrEqual(t, resp.Scores[u.start], Threshold, "key of wanted unit %q", w)
					continue
				}
				// Cohesion: no line of a relevant definition falls far below its best line.
				for i := u.start; i < u.end; i++ {
					assert.GreaterOrEqual(t, resp.Scores[i], unitCohesion*best-1e-9, "line %d of wanted unit %q split from its unit: %q", i+1, w, lines[i])
				}
			}
			// Unrelated units rank below the wanted ones as wholes (a line of theirs may
			// share the goal's words and score high on its own).
			for _, d := range fields(a.get("drop")) {
				u, ok := o.find(d)
				require.True(t, ok, "no unit named %q in\n%s", d, o.dump(lines))
				assert.Less(t, meanScore(lines, resp.Scores, u.bodyStart, u.end), wantMean, "unrelated unit %q outranks a wanted unit", d)
			}

			golden := o.dump(lines) + "--\n" + marks(lines, resp.Scores)
			if *update {
				a.set("golden", golden)
				require.NoError(t, os.WriteFile(f, a.format(), 0o644))
				return
			}
			assert.Equal(t, a.get("golden"), golden, "golden differs (go test -run TestLanguages -update)")
		})
	}
	for _, l := range s.Languages() {
		assert.True(t, seen[l], "language %s has no golden test", l)
	}
}

// meanScore is the mean score of the non-blank lines of [start, end).
func meanScore(lines []string, scores []float64, start, end int) float64 {
	sum, n := 0.0, 0
	for i := start; i < end; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			sum += scores[i]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// marks renders each line with "+" (kept at the default threshold) or "-" and its score.
func marks(lines []string, scores []float64) string {
	var b strings.Builder
	for i, l := range lines {
		m := "-"
		if scores[i] >= Threshold {
			m = "+"
		}
		fmt.Fprintf(&b, "%s %.2f %s\n", m, scores[i], l)
	}
	return b.String()
}

func (s *Scorer) outlineOf(t *testing.T, lang string, lines []string) *outline {
	t.Helper()
	if lang == langRST {
		return rstOutline(lines)
	}
	o, warn, err := s.parse(context.Background(), s.langs.byName[lang], "", lines)
	require.NoError(t, err)
	require.Empty(t, warn)
	return o
}

// readLangCase reads a testdata/lang golden file: its archive, its path and input lines.
func readLangCase(t *testing.T, file string) (archive, string, []string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	a := parseArchive(raw)
	return a, strings.TrimSpace(a.get("path")), strings.Split(strings.TrimSuffix(a.get("input"), "\n"), "\n")
}

// find returns the first unit whose declared name is name or ends with "."+name.
func (o *outline) find(name string) (unit, bool) {
	for _, u := range o.units {
		if u.name == name || strings.HasSuffix(u.name, "."+name) || lastIdent(u.name) == name {
			return u, true
		}
	}
	return unit{}, false
}

func (o *outline) dump(lines []string) string {
	var b strings.Builder
	roles := [...]string{roleDef: "def", roleChunk: "chunk", roleContainer: "container", roleImport: "import"}
	for _, u := range o.units {
		depth := 0
		for p := u.parent; p >= 0; p = o.units[p].parent {
			depth++
		}
		fmt.Fprintf(&b, "%s%s %q lines %d-%d body %d blocks %d\n", strings.Repeat("  ", depth), roles[u.role], u.name, u.start+1, u.end, u.bodyStart+1, len(u.blocks))
	}
	return b.String()
}

func TestDetect(t *testing.T) {
	ls := loadLanguages()
	t.Cleanup(ls.close)
	tests := []struct {
		name, hint, path string
		content          string
		want             string
	}{
		{name: "hint wins over path", hint: "Python", path: "x.go", want: "python"},
		{name: "hint alias", hint: "golang", want: "go"},
		{name: "hint rst", hint: "restructuredtext", want: langRST},
		{name: "path ext", path: "a/b/c.tsx", want: "tsx"},
		{name: "path ext upper case", path: "A.JAVA", want: "java"},
		{name: "rakefile", path: "Rakefile", want: "ruby"},
		{name: "C header", path: "include/list.h", content: "#ifndef LIST_H\n#define LIST_H\n\nstruct list { struct list *next; };\nint list_len(const struct list *l);\n\n#endif\n", want: "c"},
		{name: "C++ header", path: "include/list.h", content: "#pragma once\n#include <string>\n\nnamespace util {\nclass List : public Base {\n public:\n  std::string name() const;\n};\ntemplate <typename T> T first(const List &l);\n}  // namespace util\n", want: "cpp"},
		{name: "empty header", path: "x.h", want: "c"},
		{name: "rst path", path: "Doc/library/json.rst", want: langRST},
		{name: "shebang", content: "#!/bin/bash\necho hi\n", want: "bash"},
		{name: "go content", content: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tx := 1\n\tfmt.Println(x)\n}\n", want: "go"},
		{name: "python content", content: "import os\n\n\ndef main():\n    pass\n\n\nclass A:\n    pass\n", want: "python"},
		{name: "php content", content: "<?php\necho 1;\n", want: "php"},
		{name: "rust content", content: "use std::io;\n\npub fn main() {\n    let mut x = 1;\n}\n", want: "rust"},
		{name: "typescript content", content: "export interface A {\n  x: string;\n}\nexport type B = {\n  y: number;\n}\n", want: "typescript"},
		{name: "prose is unknown", content: "The quick brown fox.\nJumps over the lazy dog.\n", want: ""},
		{name: "unknown ext falls to content", path: "notes.xyz", content: "hello there\n", want: ""},
		// Found on this machine's own files (reviewed 2026-11-27): extensionless scripts whose
		// "# comments" read as Markdown headings, Go read as TypeScript, glibc and libstdc++
		// headers read as Markdown or C.
		{name: "shell script with comments", path: "usr/sbin/service", content: shScript, want: "bash"},
		{name: "shebang through env, versioned", content: "#!/usr/bin/env -S python3.11 -u\n# Title-like comment\n# Another one\n# And more\nprint(1)\n", want: "python"},
		{name: "perl script is no other language", content: "#!/usr/bin/perl -w\n# Comment one\n# Comment two\n# Comment three\nuse strict;\nfn main() {}\n", want: ""},
		{name: "node script", content: "#!/usr/bin/env node\n# not markdown\n", want: "javascript"},
		{name: "a Rust inner attribute is no shebang", content: "#![allow(dead_code)]\nuse std::io;\n\npub fn main() {\n    let mut x = 1;\n}\n", want: "rust"},
		{name: "Go read without a path", content: goNoPath, want: "go"},
		{name: "C header read without a path", content: glibcHeader, want: "c"},
		{name: "C++ header with a mode line", path: "bits/stl_iterator.h", content: "// Iterators -*- C++ -*-\n\n/*\n * Copyright (C) 2001\n * Free Software Foundation\n */\n\n#ifndef _ITER_H\n# include <x.h>\n#endif\n", want: "cpp"},
		{name: "Markdown is still Markdown", content: "# Title\n\nSome text.\n\n* item one\n* item two\n- item three\n\n## Section\n\nSee [docs](https://example.com).\n", want: "markdown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ls.detect(tt.hint, tt.path, strings.Split(tt.content, "\n")))
		})
	}
}

func TestFallback(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	goSrc := []string{"package main", "", "func main() {", "\tprintln(1)", "}"}
	garbage := make([]string, 40)
	for i := range garbage {
		garbage[i] = fmt.Sprintf("}} ]] func ( %d ))) {{ := :=", i)
	}
	tests := []struct {
		name  string
		req   engine.ScoreRequest
		warn  string
		check func(t *testing.T, resp *engine.ScoreResponse)
	}{
		{name: "unknown language", req: engine.ScoreRequest{Lines: []string{"Dear team,", "the build is red again.", "Regards"}, Goal: "build", SourceType: engine.SourceCode, Path: "letter.txt"}, warn: WarnUnknownLanguage},
		{name: "syntax errors", req: engine.ScoreRequest{Lines: garbage, Goal: "func", SourceType: engine.SourceCode, Path: "broken.go"}, warn: WarnSyntaxErrors},
		{name: "binary", req: engine.ScoreRequest{Lines: []string{"\x7fELF\x02\x01\x01\x00\x00", "\x00\x00\x3e\x00"}, Goal: "main", SourceType: engine.SourceCode, Path: "a.out.c"}, warn: WarnBinary},
		{name: "invalid utf-8", req: engine.ScoreRequest{Lines: []string{strings.Repeat("\xff\xfe\xfa", 50), "int x;"}, Goal: "x", SourceType: engine.SourceCode, Path: "a.c"}, warn: WarnBinary},
		{name: "huge single line", req: engine.ScoreRequest{Lines: []string{"var a=" + strings.Repeat("f(1),", 20000) + "0;"}, Goal: "f", SourceType: engine.SourceCode, Path: "bundle.min.js"}, warn: WarnLongLines},
		{name: "logs go to the heuristic without a warning", req: engine.ScoreRequest{Lines: []string{"INFO start", "ERROR boom", "FAIL"}, Goal: "why did it fail", SourceType: engine.SourceLogs}, check: func(t *testing.T, resp *engine.ScoreResponse) {
			h, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: []string{"INFO start", "ERROR boom", "FAIL"}, Goal: "why did it fail", SourceType: engine.SourceLogs})
			require.NoError(t, err)
			assert.Equal(t, h.Scores, resp.Scores)
		}},
		{name: "valid code uses structure", req: engine.ScoreRequest{Lines: goSrc, Goal: "main", SourceType: engine.SourceCode, Path: "main.go"}},
		// A test fixture's NUL is not a binary file (git's one-NUL rule cost such files
		// their structure).
		{name: "valid code with a NUL uses structure", req: engine.ScoreRequest{Lines: []string{"package main", "", "const sep = \"\x00\"", "", "func main() {", "\tprintln(sep)", "}"}, Goal: "main", SourceType: engine.SourceCode, Path: "main.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Score(context.Background(), &tt.req)
			require.NoError(t, err)
			scorertest.CheckScores(t, resp, len(tt.req.Lines), tt.name)
			if tt.warn == "" {
				assert.Empty(t, resp.Warnings)
			} else {
				assert.Equal(t, []string{tt.warn}, resp.Warnings)
			}
			if tt.check != nil {
				tt.check(t, resp)
			}
			// Every fallback answers as the heuristic scorer would, its threshold included;
			// structure leaves the threshold to the scorer's default.
			if strings.HasPrefix(tt.name, "valid code") {
				assert.Nil(t, resp.Threshold)
				return
			}
			h, err := heuristic.New().Score(context.Background(), &tt.req)
			require.NoError(t, err)
			assert.Equal(t, h.Scores, resp.Scores)
			require.NotNil(t, resp.Threshold)
			assert.Equal(t, heuristic.Threshold, *resp.Threshold)
		})
	}
}

// TestFallbackThroughEngine checks the warning reaches the prune result.
func TestFallbackThroughEngine(t *testing.T) {
	reg := engine.NewRegistry()
	s := New()
	reg.Register("structural", s)
	t.Cleanup(func() { _ = reg.Close() })
	eng, err := engine.New(engine.Config{Registry: reg, Store: engine.NewMemoryStore(0, 1<<20, nil), Tokens: byteCounter{}})
	require.NoError(t, err)
	res, err := eng.Prune(context.Background(), &engine.Request{
		Text: "Dear team,\nthe build is red again.\nRegards\n", GoalHint: "build", SourceType: engine.SourceCode,
		Options: engine.DefaultOptions(), Path: "letter.txt",
	})
	require.NoError(t, err)
	assert.Contains(t, res.Warnings, WarnUnknownLanguage)
}

type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s)/4 + 1 }

// TestGoalNamedAPIDefinition: the goal names `xr.where`, a one-word API that no multi-part
// identifier marks exact. The definition of where must then count as an exact name match:
// its unit relevance rises, so the long apply_ufunc, which repeats the goal's other words,
// falls relative to it (the shape of SWE-bench pydata__xarray-4687).
func TestGoalNamedAPIDefinition(t *testing.T) {
	var b strings.Builder
	b.WriteString("import functools\n\n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "def helper_%d(values, axis=None):\n    \"\"\"Reduce values along axis %d.\"\"\"\n    return sum(values) / len(values)\n\n\n", i, i)
	}
	b.WriteString("def apply_ufunc(func, *args, keep_attrs=None):\n")
	b.WriteString("    \"\"\"Apply func; attributes are dropped unless preserved, where they conflict.\"\"\"\n")
	b.WriteString("    attrs = merge_attrs([a.attrs for a in args], combine_attrs=keep_attrs)\n")
	b.WriteString("    out = func(*args)\n    out.attrs = attrs  # preserving attributes\n    return out\n\n\n")
	b.WriteString("def where(cond, x, y):\n    \"\"\"Return elements from x or y depending on cond.\"\"\"\n")
	b.WriteString("    return apply_ufunc(duck_array_ops.where, cond, x, y)\n")
	lines := engine.SplitLines(b.String())

	s := New()
	t.Cleanup(func() { _ = s.Close() })
	o, warn, err := s.parse(context.Background(), s.langs.byName["python"], "", lines)
	require.NoError(t, err)
	require.Empty(t, warn)
	q := heuristic.ParseGoal("xr.where not preserving attributes\n\nxr.where(da > 0, 1, 0) drops the attributes of da.")
	require.True(t, slices.ContainsFunc(q.Terms, func(t heuristic.Term) bool { return t.Text == "where" && t.Named }))
	plain := *q // the same goal without the API reading of "where"
	plain.Terms = slices.Clone(q.Terms)
	for i := range plain.Terms {
		plain.Terms[i].Named = false
	}
	named, _ := scoreOutline(lines, o, heuristic.Analyze(lines, q), q, nil, false)
	unnamed, _ := scoreOutline(lines, o, heuristic.Analyze(lines, &plain), &plain, nil, false)
	body := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "merge_attrs(") })
	def := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "def where(") })
	require.Positive(t, body)
	assert.Equal(t, 1.0, named[def], "where is the best unit")
	assert.Less(t, named[body], unnamed[body], "naming where as an API lowers apply_ufunc relative to it")
}

// TestCallDefinitionNames: JavaScript defines properties through calls; the unit is named
// after what the call defines, not after the helper that defines it.
func TestCallDefinitionNames(t *testing.T) {
	src := strings.Join([]string{
		"var req = exports = module.exports = {",
		"  __proto__: http.IncomingMessage.prototype",
		"};",
		"",
		"req.__defineGetter__('protocol', function(){",
		"  return this.connection.encrypted ? 'https' : 'http';",
		"});",
		"",
		"defineGetter(req, 'host', function host(){",
		"  return this.get('Host');",
		"});",
		"",
		"app.get('/users/:id', function(req, res){",
		"  res.send(req.params.id);",
		"});",
	}, "\n")
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	o, warn, err := s.parse(context.Background(), s.langs.byName["javascript"], "", engine.SplitLines(src))
	require.NoError(t, err)
	require.Empty(t, warn)
	var names []string
	for _, u := range o.units {
		names = append(names, u.name)
	}
	// A route path is no identifier: that call keeps its callee's name.
	assert.Equal(t, []string{"req", "protocol", "host", "get"}, names)
}

// TestDocBlockOneBlankAbove: a "/**" doc block one blank line above a definition (Express's
// style) is that definition's header; a line comment or a block two blank lines above is not.
// Under a goal naming the definition its doc comment is kept with it in threshold mode but
// ranks below the definition's code, which a fix touches far more often.
func TestDocBlockOneBlankAbove(t *testing.T) {
	src := strings.Join([]string{
		"'use strict';", // 0
		"",
		"/**", // 2
		" * Check if the given `charset`s are acceptable.",
		" *",
		" * @return {String|Array}",
		" */",
		"",
		"req.acceptsCharsets = function(){", // 8
		"  var accept = accepts(this);",
		"  return accept.charsets.apply(accept, arguments);",
		"};",
		"",
		"// Parse the Range header field.", // 13
		"",
		"req.range = function range(size, options) {", // 15
		"  var range = this.get('Range');",
		"  return parseRange(size, range, options);",
		"};",
		"",
		"/**", // 20
		" * Return the protocol string.",
		" */",
		"",
		"",
		"req.protocol = function(){", // 25
		"  return this.connection.encrypted ? 'https' : 'http';",
		"};",
	}, "\n")
	lines := engine.SplitLines(src)
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	o, warn, err := s.parse(context.Background(), s.langs.byName["javascript"], "", lines)
	require.NoError(t, err)
	require.Empty(t, warn)
	starts := map[string][2]int{}
	for _, u := range o.units {
		if u.role == roleDef {
			starts[u.name] = [2]int{u.start, u.bodyStart}
		}
	}
	assert.Equal(t, [2]int{2, 9}, starts["acceptsCharsets"], "the doc block one blank line above is the header")
	assert.Equal(t, 15, starts["range"][0], "a line comment a blank line above is not")
	assert.Equal(t, 25, starts["protocol"][0], "a doc block two blank lines above is not")

	goal := "req.acceptsCharsets: check if the given charsets are acceptable"
	q := heuristic.ParseGoal(goal)
	outline, _ := scoreOutline(lines, o, heuristic.Analyze(lines, q), q, heuristic.CommentLines(lines), false)
	resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode, Path: "lib/request.js"})
	require.NoError(t, err)
	floor := unitCohesion * resp.Scores[8]
	for i := 2; i <= 6; i++ {
		assert.Less(t, outline[i], outline[8], "doc line %d ranks below its signature in the outline's half", i+1)
		assert.GreaterOrEqual(t, resp.Scores[i], floor-1e-9, "doc line %d comes with its definition", i+1)
		assert.Less(t, resp.Scores[i], resp.Scores[9], "doc line %d ranks below the definition's code", i+1)
	}
}

// TestWholeFileUnitRanksItsBlocks: a function that is most of a long file (a completion
// script generator, a config parser) is no choice between units, so inside it the block
// that matches the goal must rank clearly above the blocks that do not, rather than all of
// them sharing the unit's score; a short file's function still stays whole (TestLanguages).
func TestWholeFileUnitRanksItsBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("package completion\n\nimport \"fmt\"\n\nfunc genScript(w io.Writer, name string) {\n")
	for i := range 60 {
		if i == 40 {
			b.WriteString("\tif includeDesc {\n\t\tfmt.Fprintf(w, \"complete -c %s -f -a '(__fish_prepare_completions)'\\n\", name)\n\t\tfmt.Fprintln(w, \"set -l fishNoSpace 1\")\n\t}\n")
			continue
		}
		fmt.Fprintf(&b, "\tif step%d {\n\t\tfmt.Fprintf(w, \"echo step %d for %%s\\n\", name)\n\t\twriteStep(w, %d)\n\t}\n", i, i, i)
	}
	b.WriteString("}\n\nfunc helper() int {\n\treturn 1\n}\n")
	lines := engine.SplitLines(b.String())
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "fix fishNoSpace in genScript fish completions", SourceType: engine.SourceCode, Path: "fish.go"})
	require.NoError(t, err)
	require.Empty(t, resp.Warnings)
	match := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "fishNoSpace") })
	other := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "writeStep(w, 7)") })
	require.Positive(t, match)
	require.Positive(t, other)
	assert.Greater(t, resp.Scores[match]-resp.Scores[other], 0.45, "the matching block stands out of a whole-file function")
	def := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "func genScript(") })
	assert.Greater(t, resp.Scores[def], resp.Scores[other], "the signature still ranks above unmatched blocks")
}

// FuzzScore runs the contract's fuzz property on the structural scorer: every grammar and
// fallback on arbitrary input (make fuzz runs it for minutes).
func FuzzScore(f *testing.F) {
	scorertest.Fuzz(f, func() engine.Scorer { return New() })
}

// TestDampComments: under a goal not about comments, comment lines are scaled by
// heuristic.CommentDamp except a definition's doc comment (its header), which comes with it;
// under a goal about comments nothing is damped.
func TestDampComments(t *testing.T) {
	s := New()
	defer s.Close()
	lines := strings.Split(`package cache

// Get returns the value stored under key.
func Get(key string) string {
	// look the key up
	return store[key]
}

// stray note between definitions`, "\n")
	o := s.outlineOf(t, "go", lines)
	for _, tc := range []struct {
		name   string
		goal   string
		damped []int // 0-based lines scaled by CommentDamp
	}{
		{"body and stray comments damped, doc comment spared", "Get fails for a missing key", []int{4, 8}},
		{"goal about comments", "docs: fix the comment of Get", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Comments score above their neighbours, so no lone comment is bridged.
			comment := heuristic.CommentLines(lines)
			scores := make([]float64, len(lines))
			for i := range scores {
				scores[i] = 0.2
				if comment[i] {
					scores[i] = 0.9
				}
			}
			want := slices.Clone(scores)
			for _, i := range tc.damped {
				want[i] *= heuristic.CommentDamp
			}
			var marks []bool
			if !heuristic.ParseGoal(tc.goal).AboutComments {
				marks = heuristic.CommentLines(lines)
			}
			dampComments(lines, scores, o, marks)
			assert.InDeltaSlice(t, want, scores, 1e-12)
		})
	}
}

// TestTracebackFrameRanksItsDefinition: a goal that pastes a traceback through the file being
// read ranks the line its frame cites first and its definition above the other definitions,
// although the goal's prose names neither; the same goal for a file of another path does not.
func TestTracebackFrameRanksItsDefinition(t *testing.T) {
	var src []string
	for i := range 40 {
		src = append(src, fmt.Sprintf("def helper_%d(value):", i), "    value = normalise(value)", fmt.Sprintf("    return convert(value, %d)", i), "")
	}
	const framed = 4*20 + 2 // "    return convert(value, 20)" in helper_20
	goal := `INTERNALERROR when converting a value
Traceback (most recent call last):
  File "/site-packages/pkg/convert.py", line 83, in helper_20
    return convert(value, 20)
ValueError: bad value`
	s := New()
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	score := func(path string) []float64 {
		resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: src, Goal: goal, SourceType: engine.SourceCode, Path: path})
		require.NoError(t, err)
		require.Empty(t, resp.Warnings)
		return resp.Scores
	}
	got := score("pkg/convert.py")
	assert.Equal(t, 1.0, got[framed])
	for i, v := range got {
		if i < framed-2 || i > framed {
			assert.Less(t, v, got[framed-2], "line %d below helper_20's signature", i+1)
		}
	}
	other := score("pkg/other.py")
	assert.Less(t, other[framed], 1.0, "a frame of another file lifts nothing")
}

// TestStaleDocNameUnderACommentGoal: under a goal about comments, a Go doc comment that opens
// with another identifier than its function's name ranks first with the signature it
// contradicts; a comment that opens with its own name, or with prose, does not, and under
// any other goal nothing is lifted.
func TestStaleDocNameUnderACommentGoal(t *testing.T) {
	lines := strings.Split(`package cobra

// AddCommand adds one or more commands to this parent command.
func (c *Command) AddCommand(cmds ...*Command) {
	c.commands = append(c.commands, cmds...)
}

// AddCommand removes one or more commands from a parent command.
func (c *Command) RemoveCommand(cmds ...*Command) {
	c.commands = nil
}

// Returns the commands of this parent command.
func (c *Command) Commands() []*Command {
	return c.commands
}`, "\n")
	s := New()
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	score := func(goal string) []float64 {
		resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode, Path: "command.go"})
		require.NoError(t, err)
		require.Empty(t, resp.Warnings)
		return resp.Scores
	}
	const stale, staleSig = 7, 8
	got := score("Fixed Small Comment Typo\n\nsmall error in function description")
	for i, v := range got {
		if i != stale && i != staleSig {
			assert.Less(t, v, got[stale], "line %d below the stale comment", i+1)
			assert.Less(t, v, got[staleSig], "line %d below the stale comment's signature", i+1)
		}
	}
	other := score("RemoveCommand leaves the removed commands' parent set")
	assert.Less(t, other[stale], 1.0, "no lift when the goal is not about comments")
}

// shScript is the head of an init helper as Debian ships it: comment lines like Markdown
// headings, then shell.
const shScript = `#!/bin/sh
###########################################################################
# A convenient wrapper for the /etc/init.d init scripts.
#
# This script is a modified version of the /sbin/service utility found on
# Red Hat/Fedora systems (licensed GPLv2+).
#
# Copyright (C) 2006 Red Hat, Inc. All rights reserved.
# Copyright (C) 2008 Canonical Ltd.
#   * April 2008 - Convert to sh and use LSB functions.
# Copyright (C) 2008 Dmitry Bogdanov
#
# This program is free software; you can redistribute it and/or modify
# it under the terms of the GNU General Public License as published by
# the Free Software Foundation; either version 2 of the License, or
# (at your option) any later version.
###########################################################################

is_ignored_file() {
	case "$1" in
		skeleton | README | *.dpkg-dist | *.dpkg-old | rc | rcS | single | reboot | bootclean.sh)
			return 0
		;;
	esac
	return 1
}
`

// goNoPath is a Go file's head as a client sends it without a path: a licence, a package
// comment, imports and type declarations before any function.
const goNoPath = `// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package http provides HTTP client and server implementations.
package http

import (
	"bufio"
	"context"
)

// A Handler responds to an HTTP request.
type Handler interface {
	ServeHTTP(ResponseWriter, *Request)
}

// A conn represents the server side of an HTTP connection.
type conn struct {
	server *Server
	cancelCtx context.CancelFunc
	bufr *bufio.Reader
}
`

// glibcHeader is a C header as glibc writes it: block comments whose lines start " * ",
// and directives indented after the "#".
const glibcHeader = `/* Copyright (C) 1991-2024 Free Software Foundation, Inc.
   This file is part of the GNU C Library.
 * - one
 * - two
 * - three
 */

#ifndef	_STDIO_H
#define	_STDIO_H	1

#ifdef __USE_GNU
# include <bits/types.h>
# define __need_size_t
# include <stddef.h>
#endif

extern int fclose (FILE *__stream);
extern int fflush (FILE *__stream);
`

// TestPathologicalInputLeavesTimeToAnswer: deeply nested parentheses cost tree-sitter-bash
// seconds, and the prune timed out and came back unpruned. Unbalanced, the parse is quick but
// the walk counting syntax errors took Child(i) steps through hidden nodes, quadratic in the
// depth (4 s for 10,000 parentheses): it walks with a cursor now. Balanced, 50,000 deep, the
// parse itself takes 17 s: a parse now gets half the time left and, halted, leaves the
// heuristic's scores to answer with (WarnParseFailed).
func TestPathologicalInputLeavesTimeToAnswer(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	for _, tc := range []struct {
		name string
		tail []string
		warn string
	}{
		{name: "unbalanced", tail: slices.Repeat([]string{strings.Repeat("(", 80)}, 1250)},
		{name: "balanced", tail: append(slices.Repeat([]string{strings.Repeat("(", 80)}, 625), slices.Repeat([]string{strings.Repeat(")", 80)}, 625)...), warn: WarnParseFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := append(append([]string{"f() "}, tc.tail...), "echo needle")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			resp, err := s.Score(ctx, &engine.ScoreRequest{Lines: lines, Goal: "needle", Path: "nest.sh", SourceType: engine.SourceCode})
			require.NoError(t, err, "answered before the deadline")
			assert.Len(t, resp.Scores, len(lines))
			if tc.warn != "" {
				assert.Contains(t, resp.Warnings, tc.warn)
			}
		})
	}
}

// TestNamedSectionsKeepTheirMembers: in YAML, TOML and Markdown a section the goal names is
// what it asks for. A resource map's "cloudkms:" key matched the goal, but its nested keys
// repeat nothing of it and scored 0.04-0.06, below the file's first unrelated entries, so a
// budget kept its key and lost its content.
func TestNamedSectionsKeepTheirMembers(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	var yamlLines []string
	for _, svc := range []string{"accessapproval", "alloydb", "apigee", "cloudkms", "compute", "dataflow", "dns", "iam"} {
		yamlLines = append(yamlLines, svc+":")
		for _, r := range []string{"Folder", "Project", "Organization"} {
			yamlLines = append(yamlLines,
				"  "+r+"Settings:",
				"    api_name: "+svc+".googleapis.com",
				"    api_version: v1",
				"    base_url: https://"+svc+".example/v1/"+strings.ToLower(r)+"s",
				"    docs: https://cloud.example/"+svc+"/docs/"+strings.ToLower(r),
			)
		}
	}
	var md []string
	for _, h := range []string{"Install", "Configure", "Deploy", "Troubleshoot"} {
		md = append(md, "## "+h, "")
		for i := range 6 {
			md = append(md, fmt.Sprintf("Paragraph %d of this part explains one step with several ordinary words.", i), "")
		}
	}
	for _, tc := range []struct {
		path, goal, section string
		lines               []string
	}{
		{"resource_map.yaml", "cloudkms", "cloudkms:", yamlLines},
		{"README.md", "deploy", "## Deploy", md},
	} {
		resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: tc.lines, Goal: tc.goal, Path: tc.path, SourceType: engine.SourceDocs})
		require.NoError(t, err)
		require.Empty(t, resp.Warnings)
		start := slices.Index(tc.lines, tc.section)
		end := start + 1
		for end < len(tc.lines) && (tc.lines[end] == "" || strings.HasPrefix(tc.lines[end], " ") || !strings.HasSuffix(tc.lines[end], ":") && !strings.HasPrefix(tc.lines[end], "## ")) {
			end++
		}
		inside, outside := 1.0, 0.0
		for i := range tc.lines {
			if tc.lines[i] == "" {
				continue
			}
			if i >= start && i < end {
				inside = min(inside, resp.Scores[i])
			} else {
				outside = max(outside, resp.Scores[i])
			}
		}
		assert.Greater(t, inside, outside, "%s: every line of the named section over every other line", tc.path)
		assert.GreaterOrEqual(t, inside, Threshold, tc.path)
	}
}

// TestNamedSectionOfALongYAMLFile: past parseLines a file is parsed in windows around the
// heuristic's best lines. A YAML key was no declaration to align a window to, so the window
// around "secretmanager:" began at an indented key and was cut at the next top-level one,
// before its anchor: the section was never parsed, and only its key and two lines were kept.
func TestNamedSectionOfALongYAMLFile(t *testing.T) {
	s := New()
	t.Cleanup(func() { _ = s.Close() })
	var lines []string
	section := 0
	for k := range 320 {
		name := fmt.Sprintf("service%03d", k)
		if k == 300 {
			name, section = "secretmanager", len(lines)
		}
		lines = append(lines, name+":")
		for _, r := range []string{"projects", "projects.locations", "projects.locations.operations"} {
			lines = append(lines, "  "+r+":", "    supported_apis:", "    - v1")
		}
	}
	require.Greater(t, len(lines), parseLines)
	resp, err := s.Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "secretmanager", Path: "resource_map.yaml", SourceType: engine.SourceCode})
	require.NoError(t, err)
	for i := section; i < section+10; i++ {
		assert.GreaterOrEqual(t, resp.Scores[i], Threshold, "line %d of the named section: %q", i+1, lines[i])
	}
	assert.Less(t, resp.Scores[section+12], Threshold, "the next section")
}
