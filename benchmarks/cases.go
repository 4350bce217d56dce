package benchmarks

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/engine"
)

// Case is one labelled benchmark case: a text, the goal an agent had, and the lines it
// needed (the schema of ../shared/bench/README.md).
type Case struct {
	ID         string            `json:"id"`
	SourceType engine.SourceType `json:"source_type"`
	Dataset    string            `json:"dataset"`
	GoalHint   string            `json:"goal_hint"`
	Text       string            `json:"text"`
	Path       string            `json:"path,omitempty"`
	// GoldLines are 1-based line numbers into Text, lines numbered as engine.SplitLines does.
	GoldLines []int           `json:"gold_lines"`
	Meta      json.RawMessage `json:"meta,omitempty"`
	// File is the base name of the file the case was loaded from (not part of the JSON).
	File string `json:"-"`
}

// ErrNoCases is returned (wrapped) when a data directory holds no case files.
var ErrNoCases = errors.New("no benchmark cases")

// DataDirName is the data directory's path relative to the module root's parent.
const DataDirName = "shared/bench"

// DefaultDataDir finds ../shared/bench relative to the module root that contains start (a
// directory; "" means the working directory): it walks up from start to the first directory
// holding go.mod and returns the sibling shared/bench if it exists. When no module root is
// found it also accepts a shared/bench directly under an ancestor of start.
func DefaultDataDir(start string) (string, error) {
	dir, err := absStart(start)
	if err != nil {
		return "", fmt.Errorf("benchmark data: %w", err)
	}
	start = dir
	for {
		if fileExists(filepath.Join(dir, "go.mod")) {
			cand := filepath.Join(filepath.Dir(dir), filepath.FromSlash(DataDirName))
			if dirExists(cand) {
				return cand, nil
			}
			return "", fmt.Errorf("benchmark data: %s not found next to module root %s: %w", cand, dir, os.ErrNotExist)
		}
		if cand := filepath.Join(dir, filepath.FromSlash(DataDirName)); dirExists(cand) {
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("benchmark data: no %s above %s: %w", DataDirName, start, os.ErrNotExist)
		}
		dir = parent
	}
}

// DataFiles lists the *.jsonl.gz files of dir, sorted.
func DataFiles(dir string) ([]string, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("benchmark data: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("benchmark data %s: not a directory", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl.gz"))
	if err != nil {
		return nil, fmt.Errorf("benchmark data %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("benchmark data %s: %w", dir, ErrNoCases)
	}
	sort.Strings(files)
	return files, nil
}

// LoadCases reads cases from JSONL files, gzip-compressed or not (detected from the
// content, not the name), in the order given. A malformed line is an error naming the file
// and line; a case whose gold lines fall outside its text is rejected too, since its recall
// would silently be wrong.
func LoadCases(paths ...string) ([]Case, error) {
	var out []Case
	from := map[string]string{} // case id -> the file that first held it
	for _, p := range paths {
		cs, err := loadFile(p)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if prev, dup := from[c.ID]; dup {
				// Counted twice, a case would weigh double in every mean and narrow every
				// interval.
				return nil, fmt.Errorf("load cases %s: case %s is also in %s (each case once: name each file once)", p, c.ID, prev)
			}
			from[c.ID] = p
		}
		out = append(out, cs...)
	}
	return out, nil
}

func loadFile(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load cases: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("load cases %s: %w", path, err)
		}
		defer gz.Close()
		r = &errRecorder{r: gz}
	}
	cases, err := decodeCases(r, path)
	if rec, ok := r.(*errRecorder); ok && rec.err != nil && err != nil {
		// A truncated or corrupt stream ends in a partial line, which reads as bad JSON:
		// say what broke instead.
		return nil, fmt.Errorf("load cases %s: the gzip stream is truncated or corrupt: %w", path, rec.err)
	}
	return cases, err
}

// errRecorder remembers the first error other than io.EOF its reader returned.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

func decodeCases(r io.Reader, path string) ([]Case, error) {
	base := caseFileName(path)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var out []Case
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var c Case
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("load cases %s:%d: %w", path, n, err)
		}
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("load cases %s:%d: %w", path, n, err)
		}
		c.File = base
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load cases %s: %w", path, err)
	}
	return out, nil
}

func (c *Case) validate() error {
	if c.ID == "" {
		return errors.New("case without id")
	}
	if !c.SourceType.Valid() {
		return fmt.Errorf("case %s: source_type %q", c.ID, c.SourceType)
	}
	n := len(engine.SplitLines(c.Text))
	for _, g := range c.GoldLines {
		if g < 1 || g > n {
			return fmt.Errorf("case %s: gold line %d outside 1..%d", c.ID, g, n)
		}
	}
	if strings.TrimSpace(c.GoalHint) == "" {
		// A misspelt key ("goal") would otherwise bench a whole set without goals.
		return fmt.Errorf("case %s: no goal_hint", c.ID)
	}
	return nil
}

// caseFileName turns "dir/code.dev.jsonl.gz" into "code.dev".
func caseFileName(path string) string {
	b := filepath.Base(path)
	b = strings.TrimSuffix(b, ".gz")
	return strings.TrimSuffix(b, ".jsonl")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Select returns the cases whose id matches filter (nil matches all), then at most limit
// cases from each source file (0 means no limit), spread evenly over the file so a quick
// run still sees every part of it. Order is kept.
func Select(cases []Case, filter *regexp.Regexp, limit int) []Case {
	byFile := map[string][]int{}
	var files []string
	for i := range cases {
		if filter != nil && !filter.MatchString(cases[i].ID) {
			continue
		}
		f := cases[i].File
		if _, ok := byFile[f]; !ok {
			files = append(files, f)
		}
		byFile[f] = append(byFile[f], i)
	}
	keep := make([]bool, len(cases))
	for _, f := range files {
		idx := byFile[f]
		if limit <= 0 || len(idx) <= limit {
			for _, i := range idx {
				keep[i] = true
			}
			continue
		}
		for k := 0; k < limit; k++ {
			keep[idx[k*len(idx)/limit]] = true
		}
	}
	var out []Case
	for i, k := range keep {
		if k {
			out = append(out, cases[i])
		}
	}
	return out
}
