package structural

import (
	"hash/maphash"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// sniffRule is evidence for a language in a line of content.
type sniffRule struct {
	lang   string
	re     *regexp.Regexp
	weight int
}

var sniffRules = []sniffRule{
	{"go", regexp.MustCompile(`^package [a-z_][a-z0-9_]*\s*$`), 6},
	{"go", regexp.MustCompile(`^func (\([^)]*\) )?[A-Za-z_]\w*\(`), 4},
	{"go", regexp.MustCompile(`:= `), 1},
	{"python", regexp.MustCompile(`^\s*(async )?def \w+\(.*\)(\s*->.*)?:\s*$`), 4},
	{"python", regexp.MustCompile(`^(from [\w.]+ import |import [\w.]+(, [\w.]+)*\s*$)`), 3},
	{"python", regexp.MustCompile(`^\s*class \w+(\(.*\))?:\s*$`), 4},
	{"python", regexp.MustCompile(`^\s*(elif |except\b.*:|self\.)`), 2},
	{"javascript", regexp.MustCompile(`(\brequire\(['"]|module\.exports|^\s*(export )?(async )?function\*? ?\w*\s*\()`), 3},
	{"javascript", regexp.MustCompile(`^\s*(const|let|var) \w+ = `), 1},
	{"javascript", regexp.MustCompile(`=> \{|\bconsole\.log\(`), 1},
	{"typescript", regexp.MustCompile(`^\s*(export )?(interface|type|enum) \w+.*[={]\s*$`), 4},
	{"typescript", regexp.MustCompile(`\w\??: (string|number|boolean|void|any|unknown)\b`), 2},
	{"typescript", regexp.MustCompile(`^import .* from ['"]`), 2},
	{"javascript", regexp.MustCompile(`^import .* from ['"]`), 1},
	{"java", regexp.MustCompile(`^package [\w.]+;\s*$`), 5},
	{"java", regexp.MustCompile(`^import (static )?[\w.]+(\.\*)?;\s*$`), 3},
	{"java", regexp.MustCompile(`^\s*(public|private|protected)( static)?( final)? [\w<>\[\], ]+ \w+\(`), 2},
	{"csharp", regexp.MustCompile(`^using [\w.]+;\s*$`), 4},
	{"csharp", regexp.MustCompile(`^\s*namespace [\w.]+`), 3},
	{"csharp", regexp.MustCompile(`\{ get; (private )?set; \}`), 4},
	{"rust", regexp.MustCompile(`^\s*(pub(\(\w+\))? )?(async )?fn \w+`), 5},
	{"rust", regexp.MustCompile(`^\s*use [\w:{}, *]+;\s*$|^\s*impl\b|^\s*#\[`), 3},
	{"rust", regexp.MustCompile(`\blet mut\b|&mut\b|::new\(`), 1},
	{"c", regexp.MustCompile(`^#include [<"]`), 3},
	{"c", regexp.MustCompile(`^(static )?(int|void|char|unsigned|size_t|struct \w+ \*?)\s*\*?\w+\(`), 2},
	{"cpp", regexp.MustCompile(`\bstd::|^\s*template ?<|^\s*namespace \w+ \{|\bclass \w+ (final )?[:{]`), 3},
	{"cpp", regexp.MustCompile(`^#include <\w+>\s*$`), 1},
	{"ruby", regexp.MustCompile(`^\s*def (self\.)?\w+[?!]?(\(.*\))?\s*$`), 3},
	{"ruby", regexp.MustCompile(`^\s*end\s*$`), 2},
	{"ruby", regexp.MustCompile(`^\s*(require|require_relative) ['"]|^\s*(module|class) [A-Z]\w*(::\w+)*( < \w+)?\s*$|\bdo \|`), 2},
	{"php", regexp.MustCompile(`^<\?php`), 20},
	{"php", regexp.MustCompile(`\$this->|^\s*(public |private |protected )?function \w+\(.*\$`), 3},
	{"bash", regexp.MustCompile(`^#!.*\b(ba|z|k)?sh\b`), 20},
	{"bash", regexp.MustCompile(`^\s*(if \[|fi\s*$|then\s*$|done\s*$|esac\s*$|export \w+=|\w+\(\) \{)`), 2},
	{"python", regexp.MustCompile(`^#!.*\bpython`), 20},
	{"javascript", regexp.MustCompile(`^#!.*\bnode\b`), 20},
	{"ruby", regexp.MustCompile(`^#!.*\bruby\b`), 20},
	{"yaml", regexp.MustCompile(`^---\s*$`), 2},
	{"yaml", regexp.MustCompile(`^\s*(- )?[\w.-]+:(\s+[^=\s{].*)?$`), 1},
	{"toml", regexp.MustCompile(`^\[\[?[\w.-]+\]\]?\s*$`), 3},
	{"toml", regexp.MustCompile(`^[\w.-]+ = ("|\d|true|false|\[|\{)`), 2},
	{"markdown", regexp.MustCompile("^#{1,6} \\S|^```"), 3},
	{"markdown", regexp.MustCompile(`^\s*[-*] \S|\]\(https?://`), 1},
	{langRST, regexp.MustCompile(`^\.\. [\w:-]+::`), 4},
	{langRST, regexp.MustCompile(`^(=+|-+|~+|\^+|\*+|#+)\s*$`), 1},
	{langRST, regexp.MustCompile(":(func|class|meth|mod|ref|doc|attr|data):`"), 2},
}

// sniffLines bounds the lines looked at; sniffMin is the least evidence that names a language.
const (
	sniffLines = 400
	sniffMin   = 8
)

// sniff is the package-level sniff, remembered by content.
func (c *sniffCache) sniff(lines []string) string {
	k := c.key(lines)
	if v, ok := c.m.Load(k); ok {
		return v.(string)
	}
	lang := sniff(lines)
	if c.size.Add(1) > sniffCacheMax { // bounded: start afresh rather than grow
		c.m.Clear()
		c.size.Store(0)
	}
	c.m.Store(k, lang)
	return lang
}

// sniffCache remembers verdicts by the hash of the lines sniff reads, so a file read again
// (with any goal) is not sniffed again. Safe for concurrent use.
type sniffCache struct {
	seed maphash.Seed
	m    sync.Map // uint64 -> string
	size atomic.Int64
}

const sniffCacheMax = 4096

func newSniffCache() *sniffCache { return &sniffCache{seed: maphash.MakeSeed()} }

func (c *sniffCache) key(lines []string) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for i, l := range lines {
		if i >= sniffLines {
			break
		}
		h.WriteString(l)
		h.WriteByte('\n')
	}
	return h.Sum64()
}

// sniff guesses a language from content alone, or returns "".
func sniff(lines []string) string {
	score := map[string]int{}
	for i, l := range lines {
		if i >= sniffLines {
			break
		}
		if len(l) > 1000 || strings.TrimSpace(l) == "" {
			continue
		}
		for _, r := range sniffRules {
			if r.re.MatchString(l) {
				score[r.lang] += r.weight
			}
		}
		// Stop early once one language clearly leads: most files say what they are in
		// their first lines, and every rule on every line is the cost of sniffing.
		if i%sniffCheckEvery == sniffCheckEvery-1 && clearLeader(score) {
			break
		}
	}
	best, bestScore := "", 0
	for _, sp := range sniffOrder {
		if score[sp] > bestScore {
			best, bestScore = sp, score[sp]
		}
	}
	if bestScore < sniffMin {
		return ""
	}
	// TypeScript is JavaScript with types: only call it TypeScript on type evidence.
	if best == "javascript" && score["typescript"] >= sniffMin {
		return "typescript"
	}
	if best == "c" && score["cpp"] >= 3 {
		return "cpp"
	}
	return best
}

// sniffCheckEvery is how often (in lines) sniff looks for a clear leader.
const sniffCheckEvery = 20

// clearLeader reports whether one language has at least three times the evidence needed
// and twice any other's.
func clearLeader(score map[string]int) bool {
	first, second := 0, 0
	for _, v := range score {
		switch {
		case v > first:
			first, second = v, first
		case v > second:
			second = v
		}
	}
	return first >= 3*sniffMin && first >= 2*second
}

// sniffOrder fixes the winner among equal scores so detection is deterministic.
var sniffOrder = []string{"go", "python", "typescript", "javascript", "java", "csharp", "rust", "cpp", "c", "ruby", "php", "bash", "toml", "yaml", "markdown", langRST}
