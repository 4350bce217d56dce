package heuristic_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-pruner/mcp-pruner/engine"
	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutComments(t *testing.T) {
	for goal, want := range map[string]bool{
		"docs: fix typo in private api jsdoc":                                          true,
		"Fix deprecation comment for Command.SetOutput (#2172)":                        true,
		"docs(router): explain the order of middleware":                                true,
		"Fix some typos (mostly found by codespell)":                                   true,
		"correct the docstring of parse_header":                                        true,
		"fix: commit design doc during design phases":                                  false,
		"Prevent parser to panic on an empty block":                                    false,
		"xr.where drops attributes\n<!-- This comments are hidden when you submit -->": false,
	} {
		assert.Equal(t, want, heuristic.AboutComments(goal), goal)
	}
}

func TestCommentLines(t *testing.T) {
	src := []string{
		"#!/usr/bin/env python",            // 0 shebang: code
		"# a comment",                      // 1
		"#include <stdio.h>",               // 2 preprocessor: code
		"/**",                              // 3
		" * Send a response.",              // 4
		" * @param {*} body",               // 5
		" */",                              // 6
		"res.send = function send(body) {", // 7
		"  // inline note",                 // 8
		"  return this; /* trailing */",    // 9
		`    """Parse a header.`,           // 10
		"",                                 // 11
		`    Returns a dict."""`,           // 12
		`    x = """not a docstring"""`,    // 13
		"<!-- note -->",                    // 14
		"};",                               // 15
		"#[derive(Debug, Clone)]",          // 16 Rust attribute: code
		"#![allow(dead_code)]",             // 17 Rust inner attribute: code
	}
	want := []bool{false, true, false, true, true, true, true, false, true, false, true, true, true, false, true, false, false, false}
	assert.Equal(t, want, heuristic.CommentLines(src))
}

// TestPreprocessorLinesAreCode: every C preprocessor directive, spaced or not, is code; a
// '#' comment is a comment, including one that opens with a directive's initial but is no
// directive, and a comment that reads like one ("# if ...") is taken for one, as before.
func TestPreprocessorLinesAreCode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		line    string
		comment bool
	}{
		{"include", "#include <stdio.h>", false},
		{"spaced define", "#  define MAX 4", false},
		{"undef", "#undef MAX", false},
		{"if", "#if defined(X)", false},
		{"ifdef", "#ifdef X", false},
		{"ifndef", "#ifndef X", false},
		{"else", "#else", false},
		{"elif", "#elif X", false},
		{"endif", "#endif", false},
		{"pragma", "#pragma once", false},
		{"error", `#error "no"`, false},
		{"warning", "#warning old", false},
		{"line", "#line 10", false},
		{"import", "#import <Foundation/Foundation.h>", false},
		{"include with a quote", `#include"x.h"`, false},
		{"prose with an initial", "# ensure the cache is warm", true},
		{"prose in capitals", "# Install the package", true},
		{"a directive's prefix only", "#includes are sorted", true},
		{"empty", "#", true},
		{"prose that reads as a directive", "# if the user is absent", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, []bool{tc.comment}, heuristic.CommentLines([]string{tc.line}))
		})
	}
}

// TestCommentGoalRanksCommentsFirst: under a goal about a comment, comment lines rise above
// code that does not match (the doc comment of the named function most), and under any other
// goal they do not.
func TestCommentGoalRanksCommentsFirst(t *testing.T) {
	lines := strings.Split(commentFixture, "\n")
	score := func(goal string) []float64 {
		resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: goal, SourceType: engine.SourceCode})
		require.NoError(t, err)
		return resp.Scores
	}
	about, other := score("docs: fix res.sendStatus jsdoc comment"), score("fix res.sendStatus status code")
	const doc, unrelatedComment, unrelatedCode, matchingCode = 1, 12, 15, 6
	assert.Greater(t, about[doc], other[doc]+0.2, "the doc comment is lifted")
	assert.Greater(t, about[doc], about[unrelatedCode], "the doc comment outranks unrelated code")
	assert.Greater(t, about[unrelatedComment], about[unrelatedCode], "any comment outranks unrelated code")
	assert.Less(t, about[unrelatedComment], about[matchingCode], "code that matches well still outranks an unrelated comment")
	assert.Greater(t, other[matchingCode], other[unrelatedComment], "without the intent, matching code outranks comments")
	assert.Less(t, other[doc], other[unrelatedCode]+0.2, "and comments are not lifted")
}

// TestCommentGoalKeepsADocBlockWhole: under a goal about a comment, every line of the doc
// block of the code it names (across the blank line Express puts between them) ranks with
// the block, above any line of another comment block: the line to fix is a typo that
// shares no word with the goal.
func TestCommentGoalKeepsADocBlockWhole(t *testing.T) {
	lines := strings.Split(`/**
 * Transfer the file at the given path as an attachment.
 *
 * Optionally providing an alternate attachment filename.
 * The callback is invoked when the transfer is complete
 * or when an error ocurred. Be sure to check headersSent.
 *
 * @public
 */

res.download = function download(path, filename, callback) {
  return this.sendFile(path, { headers: { 'Content-Disposition': disposition(filename) } }, callback)
}

/**
 * Set header field to value, or pass an object of header fields.
 *
 * Examples:
 *
 *    res.set('Accept', 'application/json');
 *
 * @public
 */

res.set = function header(field, val) {
  this.setHeader(field, val)
}`, "\n")
	resp, err := heuristic.New().Score(context.Background(), &engine.ScoreRequest{Lines: lines, Goal: "docs: fix typo in res.download jsdoc", SourceType: engine.SourceCode})
	require.NoError(t, err)
	s := resp.Scores
	for i := 0; i <= 8; i++ {
		for j := 14; j <= 22; j++ {
			assert.Greater(t, s[i], s[j], "line %d of the named function's doc above line %d of another's", i+1, j+1)
		}
	}
}

const commentFixture = `/**
 * Send a response with status code and body.
 * @param {number} statusCode
 * @return {ServerResponse}
 */
res.sendStatus = function sendStatus(statusCode) {
  var body = statuses.message[statusCode] || String(statusCode)
  this.statusCode = statusCode
  return this.send(body)
}

/**
 * Set header field to value.
 */
res.set = function header(field, val) {
  this.setHeader(field, val)
}`

// TestCommentsDampedUnlessAsked: for code, Score applies DampCommentLines to the line
// evidence (ScoreWithAnalysis) unless the goal is about comments; docs and logs are left as
// they are.
func TestCommentsDampedUnlessAsked(t *testing.T) {
	lines := strings.Split(commentFixture, "\n")
	comment := heuristic.CommentLines(lines)
	require.Contains(t, comment, true)
	require.Contains(t, comment, false)
	for _, tc := range []struct {
		name   string
		goal   string
		source engine.SourceType
		damped bool
	}{
		{"code", "fix res.sendStatus status code", engine.SourceCode, true},
		{"no source type is code", "fix res.sendStatus status code", "", true},
		{"goal about comments", "docs: fix res.sendStatus jsdoc comment", engine.SourceCode, false},
		{"docs", "fix res.sendStatus status code", engine.SourceDocs, false},
		{"logs", "fix res.sendStatus status code", engine.SourceLogs, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := &engine.ScoreRequest{Lines: lines, Goal: tc.goal, SourceType: tc.source}
			s := heuristic.New()
			evidence, _, err := s.ScoreWithAnalysis(context.Background(), req)
			require.NoError(t, err)
			got, err := s.Score(context.Background(), req)
			require.NoError(t, err)
			want := slices.Clone(evidence.Scores)
			if tc.damped {
				heuristic.DampCommentLines(lines, want, comment)
			}
			assert.InDeltaSlice(t, want, got.Scores, 1e-12)
			if tc.damped {
				assert.Less(t, got.Scores[1], evidence.Scores[1], "the doc comment is damped")
			}
		})
	}
}

// TestDampCommentLines: comment lines are scaled by CommentDamp, except a lone comment line
// between two code lines (blank lines aside), which keeps at least the lower of their scores.
func TestDampCommentLines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		comment []bool
		scores  []float64
		want    []float64
	}{
		{
			name:    "lone comment inside a block keeps the block's lower score",
			lines:   []string{"a = 1", "# note", "b = 2"},
			comment: []bool{false, true, false},
			scores:  []float64{0.9, 0.5, 0.7},
			want:    []float64{0.9, 0.7, 0.7},
		},
		{
			name:    "blank lines around it do not matter",
			lines:   []string{"a = 1", "", "# note", "", "b = 2"},
			comment: []bool{false, false, true, false, false},
			scores:  []float64{0.9, 0.1, 0.5, 0.1, 0.7},
			want:    []float64{0.9, 0.1, 0.7, 0.1, 0.7},
		},
		{
			name:    "a matching comment keeps its damped score when it is higher",
			lines:   []string{"a = 1", "# note", "b = 2"},
			comment: []bool{false, true, false},
			scores:  []float64{0.3, 1, 0.4},
			want:    []float64{0.3, heuristic.CommentDamp, 0.4},
		},
		{
			name:    "two comment lines are damped",
			lines:   []string{"a = 1", "# one", "# two", "b = 2"},
			comment: []bool{false, true, true, false},
			scores:  []float64{0.9, 0.5, 0.5, 0.9},
			want:    []float64{0.9, 0.5 * heuristic.CommentDamp, 0.5 * heuristic.CommentDamp, 0.9},
		},
		{
			name:    "at the edges of the text",
			lines:   []string{"# head", "a = 1", "# tail"},
			comment: []bool{true, false, true},
			scores:  []float64{0.5, 0.9, 0.5},
			want:    []float64{0.5 * heuristic.CommentDamp, 0.9, 0.5 * heuristic.CommentDamp},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.scores)
			heuristic.DampCommentLines(tc.lines, got, tc.comment)
			assert.InDeltaSlice(t, tc.want, got, 1e-12)
		})
	}
}
