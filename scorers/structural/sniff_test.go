package structural

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-pruner/mcp-pruner/scorers/scorertest"
)

// checkNeeds fails when some rule's need list rejects a line its expression matches, which
// would change what sniff decides.
func checkNeeds(t *testing.T, l string) {
	t.Helper()
	for k := range sniffRules {
		r := &sniffRules[k]
		if r.re.MatchString(l) && (r.unless == nil || !r.unless.MatchString(l)) {
			require.True(t, r.matches(l), "rule %d (%s %s) matches %q, but its need list %q rejects it", k, r.lang, r.re, l, r.need)
		}
	}
}

// TestSniffNeedsHideNoMatch: on every line of the golden files of every language, and on
// the lines sniff reads of sampled ../shared/bench texts, a rule's need list lets through
// every line its expression matches. The lines each rule was written for come first.
func TestSniffNeedsHideNoMatch(t *testing.T) {
	for _, l := range []string{
		"package main", "func (s *S) Get(", "x := 1", "async def f(a) -> int:", "from a.b import c",
		"import os, sys", "class A(B):", "    elif x:", "except Exception as e:", "self.x = 1",
		"const x = require('y')", "module.exports = f", "export async function* g (", "let a = 1",
		"x => {", "console.log(1)", "export interface A {", "type T = {", "enum E {", "a?: string",
		"import x from 'y'", "package a.b;", "import static a.B.*;", "  public static final int f(",
		"using System.IO;", "namespace A.B", "int X { get; private set; }", "pub(crate) async fn f",
		"use a::{b, c};", "impl A for B", "#[derive(Debug)]", "let mut x", "&mut y", "A::new(",
		"#include <stdio.h>", "#include \"a.h\"", "static struct a *f(", "unsigned g(", "std::vector",
		"template<typename T>", "namespace a {", "class A final {", "def self.x?", "end",
		"require_relative 'a'", "module A::B", "class A < B", "x.each do |y|", "<?php",
		"$this->a", "public function f($a", "#!/bin/bash", "#!/usr/bin/env zsh", "if [ -f a ]",
		"fi", "then", "done", "esac", "export A=1", "f() {", "#!/usr/bin/env python3",
		"#!/usr/bin/env node", "#!/usr/bin/ruby", "---", "- key: value", "key:", "[[tool.a]]",
		"[a.b]", "a = \"b\"", "n = 1", "ok = true", "t = [1]", "# Title", "```go", "* item",
		"- item", "[x](https://a)", ".. function:: f()", "=====", "-----", "~~~", "^^^", "***",
		"###", "see :func:`f`",
	} {
		checkNeeds(t, l)
	}
	files, err := filepath.Glob("testdata/lang/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(string(b), "\n") {
			checkNeeds(t, l)
		}
	}
	for _, req := range scorertest.BenchRequests(t, 12) {
		lines := strings.Split(req.Text, "\n")
		for _, l := range lines[:min(len(lines), sniffLines)] {
			checkNeeds(t, l)
		}
	}
}

// FuzzSniffNeeds: no line, however odd, is matched by a rule's expression and rejected by its
// need list.
func FuzzSniffNeeds(f *testing.F) {
	for _, s := range []string{"package main", "  def f(x):", "a := b", "=> {", "#!/bin/sh", "key: v", "fi", "--- ", "a = [1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		checkNeeds(t, l)
	})
}

// BenchmarkSniff: content detection of a 200-line file read without a path (the cache is
// bypassed: sniff is what a never-seen text costs). handlers is the load generator's text
// (server/loadtest): short Go functions, where no language leads clearly for longer.
func BenchmarkSniff(b *testing.B) {
	for _, lang := range []string{"go", "python", "handlers"} {
		lines := synthFile(lang, 200)
		want := lang
		if lang == "handlers" {
			lines, want = handlerLines(200), "go"
		}
		b.Run("text="+lang, func(b *testing.B) {
			b.SetBytes(int64(len(strings.Join(lines, "\n"))))
			b.ReportAllocs()
			for b.Loop() {
				if got := sniff(lines); got != want {
					b.Fatalf("sniffed %q", got)
				}
			}
		})
	}
}

// handlerLines is n lines of server/loadtest's request text.
func handlerLines(n int) []string {
	out := []string{"// request 000000000001", "package server", "", "import (", "\t\"context\"", "\t\"net/http\"", ")", ""}
	for i := 0; len(out) < n; i++ {
		switch i % 6 {
		case 0:
			out = append(out, fmt.Sprintf("// handler%d serves one route and logs its latency.", i))
		case 1:
			out = append(out, fmt.Sprintf("func handler%d(ctx context.Context, w http.ResponseWriter, r *http.Request) error {", i))
		case 2:
			out = append(out, fmt.Sprintf("\tv%d, err := parseHeader(r.Header.Get(\"X-Trace-%d\"))", i, i))
		case 3:
			out = append(out, "\tif err != nil {", fmt.Sprintf("\t\treturn fmt.Errorf(\"route %d: %%w\", err)", i), "\t}")
		case 4:
			out = append(out, fmt.Sprintf("\tw.Write([]byte(strconv.Itoa(v%d)))", i-2))
		case 5:
			out = append(out, "\treturn nil", "}", "")
		}
	}
	return out[:n]
}

// TestLanguagesAgreesWithDetect: every name Languages lists, and every alias it accepts, is
// what detect takes from a language hint; an unknown hint is not accepted.
func TestLanguagesAgreesWithDetect(t *testing.T) {
	ls := loadLanguages()
	defer ls.close()
	names, _ := Languages("")
	assert.True(t, slices.IsSorted(names))
	for _, n := range names {
		_, ok := Languages(strings.ToUpper(n) + " ")
		assert.True(t, ok, n)
		assert.Equal(t, n, ls.detect(n, "", nil), "hint %q", n)
	}
	for _, sp := range specs() {
		for _, a := range sp.alias {
			_, ok := Languages(a)
			assert.True(t, ok, a)
			assert.Equal(t, sp.name, ls.detect(a, "", nil), "alias %q", a)
		}
	}
	for _, h := range []string{"cobol", "restructured", "pyth"} {
		_, ok := Languages(h)
		assert.False(t, ok, h)
	}
}
