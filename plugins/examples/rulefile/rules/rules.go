// Package rules is the scorer of the rulefile example plugin: lines matching an operator's
// patterns (their own log formats, their own error markers) get the pattern's weight, other
// lines get a small share for the goal's words they contain.
//
// Rule file format, one rule a line; blank lines and lines starting with # are ignored:
//
//	<weight in [0,1]> <RE2 regular expression to the end of the line>
//	0.9 ^\d{4}-\d\d-\d\dT\S+ (ERROR|FATAL)
//	0.7 (?i)retrying|connection refused
package rules

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// goalShare caps what goal words alone can give a line, so a matching rule always wins.
const goalShare = 0.5

// Rule is one weighted pattern.
type Rule struct {
	Weight  float64
	Pattern *regexp.Regexp
}

// Scorer scores lines by the heaviest rule they match. It is immutable, hence safe for
// concurrent use.
type Scorer struct{ rules []Rule }

var (
	_ engine.Scorer    = (*Scorer)(nil)
	_ engine.Describer = (*Scorer)(nil)
)

// Load reads a rule file.
func Load(path string) (*Scorer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Parse reads rules from r.
func Parse(r io.Reader) (*Scorer, error) {
	var rules []Rule
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w, expr, ok := strings.Cut(line, " ")
		weight, err := strconv.ParseFloat(w, 64)
		if !ok || err != nil || !(weight >= 0 && weight <= 1) {
			return nil, fmt.Errorf("line %d: want \"<weight in [0,1]> <pattern>\"", n)
		}
		re, err := regexp.Compile(strings.TrimSpace(expr))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		rules = append(rules, Rule{Weight: weight, Pattern: re})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return &Scorer{rules: rules}, nil
}

// Describe names the scorer; lines need a rule (or most goal words) to pass 0.5.
func (s *Scorer) Describe() engine.ScorerInfo {
	return engine.ScorerInfo{Name: "rulefile", Description: fmt.Sprintf("%d operator rules plus goal words", len(s.rules)), Threshold: 0.5}
}

// Score gives each line max(heaviest matching rule, goalShare * share of goal words present).
func (s *Scorer) Score(ctx context.Context, req *engine.ScoreRequest) (*engine.ScoreResponse, error) {
	words := goalWords(req.Goal)
	scores := make([]float64, len(req.Lines))
	for i, line := range req.Lines {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var best float64
		for _, r := range s.rules {
			if r.Weight > best && r.Pattern.MatchString(line) {
				best = r.Weight
			}
		}
		if len(words) > 0 {
			lower, hits := strings.ToLower(line), 0
			for _, w := range words {
				if strings.Contains(lower, w) {
					hits++
				}
			}
			best = max(best, goalShare*float64(hits)/float64(len(words)))
		}
		scores[i] = best
	}
	return &engine.ScoreResponse{Scores: scores, Focus: words}, nil
}

// goalWords are the goal's distinct lower-case words of four letters or more, in order.
func goalWords(goal string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(goal), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if len(w) >= 4 && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
