package structural

import (
	"hash/maphash"
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// sniffRule is evidence for a language in a line of content. need lists strings of which
// every line re matches holds at least one: most lines hold none, and strings.Contains is
// far cheaper than a regular expression that fails (sniffing a file read without a path
// was 0.7 ms of a 2 ms prune of 200 lines before). TestSniffNeedsHideNoMatch and
// FuzzSniffNeeds check that need never rejects a line re matches.
type sniffRule struct {
	lang   string
	need   []string
	re     *regexp.Regexp
	weight int
	unless *regexp.Regexp // when set, a line it matches is no evidence for lang
}

// rule is a sniffRule: weight for lang on a line that re matches and that holds one of need.
func rule(lang string, weight int, re string, need ...string) sniffRule {
	return sniffRule{lang: lang, need: need, re: regexp.MustCompile(re), weight: weight}
}

// except returns r, counting no line that re matches.
func (r sniffRule) except(re string) sniffRule {
	r.unless = regexp.MustCompile(re)
	return r
}

// cDirective is a C preprocessor line written with a space after the "#" (glibc's headers
// indent their directives so), which a Markdown heading rule would take for a heading.
const cDirective = `^#\s*(include|define|undef|ifdef|ifndef|endif|pragma)\b`

// goTypeDecl is a Go type declaration, which the TypeScript rule would take for one of its own.
const goTypeDecl = `^type \w+(\[.*\])? (struct|interface) \{`

var sniffRules = []sniffRule{
	rule("go", 6, `^package [a-z_][a-z0-9_]*\s*$`, "package "),
	rule("go", 4, `^func (\([^)]*\) )?[A-Za-z_]\w*\(`, "func "),
	rule("go", 1, `:= `, ":= "),
	rule("go", 4, goTypeDecl, "type "),
	rule("go", 3, `^import (\(|"[\w./-]+")\s*$`, "import "),
	rule("python", 4, `^\s*(async )?def \w+\(.*\)(\s*->.*)?:\s*$`, "def "),
	rule("python", 3, `^(from [\w.]+ import |import [\w.]+(, [\w.]+)*\s*$)`, "import "),
	rule("python", 4, `^\s*class \w+(\(.*\))?:\s*$`, "class "),
	rule("python", 2, `^\s*(elif |except\b.*:|self\.)`, "elif ", "except", "self."),
	rule("javascript", 3, `(\brequire\(['"]|module\.exports|^\s*(export )?(async )?function\*? ?\w*\s*\()`, "require(", "module.exports", "function"),
	rule("javascript", 1, `^\s*(const|let|var) \w+ = `, " = "),
	rule("javascript", 1, `=> \{|\bconsole\.log\(`, "=> {", "console.log("),
	rule("typescript", 4, `^\s*(export )?(interface|type|enum) \w+.*[={]\s*$`, "interface ", "type ", "enum ").except(goTypeDecl),
	rule("typescript", 2, `\w\??: (string|number|boolean|void|any|unknown)\b`, ": string", ": number", ": boolean", ": void", ": any", ": unknown"),
	rule("typescript", 2, `^import .* from ['"]`, "import "),
	rule("javascript", 1, `^import .* from ['"]`, "import "),
	rule("java", 5, `^package [\w.]+;\s*$`, "package "),
	rule("java", 3, `^import (static )?[\w.]+(\.\*)?;\s*$`, "import "),
	rule("java", 2, `^\s*(public|private|protected)( static)?( final)? [\w<>\[\], ]+ \w+\(`, "public ", "private ", "protected "),
	rule("csharp", 4, `^using [\w.]+;\s*$`, "using "),
	rule("csharp", 3, `^\s*namespace [\w.]+`, "namespace "),
	rule("csharp", 4, `\{ get; (private )?set; \}`, "{ get; "),
	rule("rust", 5, `^\s*(pub(\(\w+\))? )?(async )?fn \w+`, "fn "),
	rule("rust", 3, `^\s*use [\w:{}, *]+;\s*$|^\s*impl\b|^\s*#\[`, "use ", "impl", "#["),
	rule("rust", 1, `\blet mut\b|&mut\b|::new\(`, "let mut", "&mut", "::new("),
	rule("c", 3, `^#include [<"]`, "#include "),
	rule("c", 2, `^(static )?(int|void|char|unsigned|size_t|struct \w+ \*?)\s*\*?\w+\(`, "int", "void", "char", "unsigned", "size_t", "struct "),
	rule("cpp", 3, `\bstd::|^\s*template ?<|^\s*namespace \w+ \{|\bclass \w+ (final )?[:{]`, "std::", "template", "namespace ", "class "),
	rule("cpp", 1, `^#include <\w+>\s*$`, "#include <"),
	rule("cpp", 20, `(?i)-\*-.*\bc\+\+.*-\*-`, "-*-"),
	rule("c", 3, cDirective, "#"),
	rule("ruby", 3, `^\s*def (self\.)?\w+[?!]?(\(.*\))?\s*$`, "def "),
	rule("ruby", 2, `^\s*end\s*$`, "end"),
	rule("ruby", 2, `^\s*(require|require_relative) ['"]|^\s*(module|class) [A-Z]\w*(::\w+)*( < \w+)?\s*$|\bdo \|`, "require", "module ", "class ", "do |"),
	rule("php", 20, `^<\?php`, "<?php"),
	rule("php", 3, `\$this->|^\s*(public |private |protected )?function \w+\(.*\$`, "$this->", "function "),
	rule("bash", 2, `^\s*(if \[|fi\s*$|then\s*$|done\s*$|esac\s*$|export \w+=|\w+\(\) \{)`, "if [", "fi", "then", "done", "esac", "export ", "() {"),
	rule("yaml", 2, `^---\s*$`, "---"),
	rule("yaml", 1, `^\s*(- )?[\w.-]+:(\s+[^=\s{].*)?$`, ":"),
	rule("toml", 3, `^\[\[?[\w.-]+\]\]?\s*$`, "["),
	rule("toml", 2, `^[\w.-]+ = ("|\d|true|false|\[|\{)`, " = "),
	rule("markdown", 3, "^#{1,6} \\S|^```", "# ", "```").except(cDirective),
	// " * text" (one space) continues a C, Java or JavaScript block comment: no list item.
	rule("markdown", 1, `^(\s*- |\* |\s\s+\* )\S|\]\(https?://`, "- ", "* ", "](http"),
	rule(langRST, 4, `^\.\. [\w:-]+::`, ".. "),
	rule(langRST, 1, `^(=+|-+|~+|\^+|\*+|#+)\s*$`, "=", "-", "~", "^", "*", "#"),
	rule(langRST, 2, ":(func|class|meth|mod|ref|doc|attr|data):`", ":`"),
}

// matches reports whether r's evidence is in l.
func (r *sniffRule) matches(l string) bool {
	for _, n := range r.need {
		if strings.Contains(l, n) {
			return r.re.MatchString(l) && (r.unless == nil || !r.unless.MatchString(l))
		}
	}
	return false
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
	if len(lines) > 0 && strings.HasPrefix(lines[0], "#!") && !strings.HasPrefix(lines[0], "#![") {
		// A script says what runs it: what follows cannot outweigh that, and a script in a
		// language without a grammar here is no other language ("# comments" read as
		// Markdown headings made most extensionless shell and Perl scripts Markdown).
		// Rust's inner attributes ("#![no_std]") are no shebang.
		return shebang(lines[0])
	}
	score := map[string]int{}
	for i, l := range lines {
		if i >= sniffLines {
			break
		}
		if len(l) > 1000 || strings.TrimSpace(l) == "" {
			continue
		}
		for k := range sniffRules {
			if r := &sniffRules[k]; r.matches(l) {
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

// cppEvidence reports whether lines show C++ (std::, templates, namespaces, classes, an
// editor's C++ mode line) as strongly as sniff asks before it calls C content C++, whatever
// else wins: a header's comments may look more like Markdown than like either.
func cppEvidence(lines []string) bool {
	n := 0
	for i, l := range lines {
		if i >= sniffLines {
			break
		}
		if len(l) > 1000 {
			continue
		}
		for k := range sniffRules {
			if r := &sniffRules[k]; r.lang == "cpp" && r.matches(l) {
				if n += r.weight; n >= 3 {
					return true
				}
			}
		}
	}
	return false
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

// shebang returns the language of the interpreter a "#!" line names ("#!/bin/sh",
// "#!/usr/bin/env -S python3 -u"), or "" for one without a grammar here (perl, awk, make).
func shebang(line string) string {
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	prog := path.Base(fields[0])
	if prog == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				prog = path.Base(f)
				break
			}
		}
	}
	// python3.11, ruby2.7, php8.2: the version is not the language.
	prog = strings.TrimRight(prog, "0123456789.")
	switch prog {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash":
		return "bash"
	case "python", "pypy":
		return "python"
	case "node", "nodejs", "bun":
		return "javascript"
	case "deno", "ts-node", "tsx":
		return "typescript"
	case "ruby":
		return "ruby"
	case "php":
		return "php"
	}
	return ""
}
