package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// DefaultFixPattern matches commit messages that describe a bug fix.
const DefaultFixPattern = `(?i)\b(fix(es|ed|ing)?|bug(s|fix)?|issue|crash(es|ed)?|regression|panic|broken|incorrect|wrong)\b`

// DefaultMaxFileBytes is the largest pre-fix file BuildCommits turns into a case.
const DefaultMaxFileBytes = 512 << 10

// CommitOptions configures BuildCommits.
type CommitOptions struct {
	// Repo is a local git repository (working tree or bare).
	Repo string
	// Since, when set, is passed to git log --since (e.g. "2 years ago", "2023-01-01").
	Since string
	// Grep selects fix commits by message (Go regexp); DefaultFixPattern when empty.
	Grep string
	// MaxFileBytes skips larger files; DefaultMaxFileBytes when 0.
	MaxFileBytes int
	// Limit stops after this many cases (newest commits first); 0 means no limit.
	Limit int
	// Git is the git executable; "git" when empty.
	Git string
}

// CommitStats says what BuildCommits looked at and why files were skipped.
type CommitStats struct {
	Commits, FixCommits, Cases                  int
	SkippedBinary, SkippedLarge, SkippedNoLines int
}

// BuildCommits mines the bug-fix commits of a local git repository into cases, with the
// rule of ../shared/bench/README.md: goal = the commit message, text = each modified file as
// it was before the fix, gold = the lines the fix removed or modified, plus the nearest
// non-blank line on each side of a pure insertion. Merge and root commits, added, deleted,
// renamed, binary and oversized files are skipped.
func BuildCommits(ctx context.Context, o CommitOptions) ([]Case, CommitStats, error) {
	var st CommitStats
	if o.Repo == "" {
		return nil, st, errors.New("build-commits: no repository")
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Grep == "" {
		o.Grep = DefaultFixPattern
	}
	re, err := regexp.Compile(o.Grep)
	if err != nil {
		return nil, st, fmt.Errorf("build-commits: --grep: %w", err)
	}
	g := gitRunner{bin: o.Git, repo: o.Repo}
	args := []string{"log", "--no-merges", "--format=%H%x00%P%x00%B%x1e"}
	if o.Since != "" {
		args = append(args, "--since="+o.Since)
	}
	out, err := g.run(ctx, args...)
	if err != nil {
		return nil, st, err
	}
	repoName := filepath.Base(strings.TrimSuffix(mustAbs(o.Repo), ".git"))
	var cases []Case
	for _, rec := range strings.Split(string(out), "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		parts := strings.SplitN(rec, "\x00", 3)
		if len(parts) != 3 {
			continue
		}
		st.Commits++
		sha, parents, msg := parts[0], strings.Fields(parts[1]), strings.TrimSpace(parts[2])
		if len(parents) != 1 || !re.MatchString(msg) {
			continue
		}
		st.FixCommits++
		cs, err := commitCases(ctx, g, &st, o, repoName, sha, parents[0], msg)
		if err != nil {
			return nil, st, err
		}
		for _, c := range cs {
			if o.Limit > 0 && len(cases) >= o.Limit {
				st.Cases = len(cases)
				return cases, st, nil
			}
			cases = append(cases, c)
		}
	}
	st.Cases = len(cases)
	return cases, st, nil
}

func commitCases(ctx context.Context, g gitRunner, st *CommitStats, o CommitOptions, repoName, sha, parent, msg string) ([]Case, error) {
	// Modified files only (--diff-filter=M): new, deleted and renamed files have no "before".
	out, err := g.run(ctx, "diff-tree", "-r", "-z", "--numstat", "--diff-filter=M", "--no-renames", parent, sha)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, rec := range strings.Split(string(out), "\x00") {
		fields := strings.SplitN(rec, "\t", 3)
		if len(fields) != 3 {
			continue
		}
		file := fields[2]
		if fields[0] == "-" || fields[1] == "-" {
			st.SkippedBinary++
			continue
		}
		size, err := g.run(ctx, "cat-file", "-s", parent+":"+file)
		if err != nil {
			return nil, err
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(size))); err != nil || n > o.MaxFileBytes {
			st.SkippedLarge++
			continue
		}
		before, err := g.run(ctx, "cat-file", "blob", parent+":"+file)
		if err != nil {
			return nil, err
		}
		if bytes.IndexByte(before, 0) >= 0 {
			st.SkippedBinary++
			continue
		}
		diff, err := g.run(ctx, "diff", "--no-ext-diff", "--no-color", "-U0", parent, sha, "--", file)
		if err != nil {
			return nil, err
		}
		text := string(before)
		gold := goldFromDiff(diff, engine.SplitLines(text))
		if len(gold) == 0 {
			st.SkippedNoLines++
			continue
		}
		meta, _ := json.Marshal(map[string]string{"repo": repoName, "commit": sha, "language": languageOf(file)})
		cases = append(cases, Case{
			// commits/<repo>@<commit>/<file>: the dev sets' form (commits/<repo>@<commit>) with
			// the file, so spread's and diff's repository key (DevRepoKey) and train's folds
			// group a mined repository's cases together.
			ID:         "commits/" + repoName + "@" + sha[:min(12, len(sha))] + "/" + file,
			SourceType: sourceTypeOf(file),
			Dataset:    "fix-commits",
			GoalHint:   msg,
			Text:       text,
			Path:       file,
			GoldLines:  gold,
			Meta:       meta,
		})
	}
	return cases, nil
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)

// goldFromDiff reads a -U0 diff's hunk headers: a hunk that removes or modifies old lines
// a..a+b-1 marks them; a pure insertion after old line a marks the nearest non-blank line
// at or above a and the nearest non-blank line below it.
func goldFromDiff(diff []byte, lines []string) []int {
	n := len(lines)
	blank := func(i int) bool { return strings.TrimSpace(lines[i-1]) == "" }
	set := map[int]struct{}{}
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		m := hunkHeader.FindSubmatch(sc.Bytes())
		if m == nil {
			continue
		}
		start, _ := strconv.Atoi(string(m[1]))
		count := 1
		if len(m[2]) > 0 {
			count, _ = strconv.Atoi(string(m[2]))
		}
		if count > 0 {
			for i := start; i < start+count && i <= n; i++ {
				set[i] = struct{}{}
			}
			continue
		}
		for i := min(start, n); i >= 1; i-- {
			if !blank(i) {
				set[i] = struct{}{}
				break
			}
		}
		for i := start + 1; i <= n; i++ {
			if !blank(i) {
				set[i] = struct{}{}
				break
			}
		}
	}
	gold := make([]int, 0, len(set))
	for i := range set {
		gold = append(gold, i)
	}
	sort.Ints(gold)
	return gold
}

// sourceTypeOf treats prose formats as docs and everything else as code.
func sourceTypeOf(file string) engine.SourceType {
	switch strings.ToLower(path.Ext(file)) {
	case ".md", ".markdown", ".rst", ".txt", ".adoc":
		return engine.SourceDocs
	}
	return engine.SourceCode
}

func languageOf(file string) string {
	return strings.TrimPrefix(strings.ToLower(path.Ext(file)), ".")
}

func mustAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// gitRunner runs git in one repository.
type gitRunner struct{ bin, repo string }

func (g gitRunner) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, g.bin, append([]string{"-C", g.repo, "-c", "core.quotepath=off"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// WriteCases writes cases as JSONL, one case per line, in the schema LoadCases reads.
func WriteCases(w io.Writer, cases []Case) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range cases {
		if err := enc.Encode(&cases[i]); err != nil {
			return err
		}
	}
	return nil
}
