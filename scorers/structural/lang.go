package structural

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	markdown "github.com/smacker/go-tree-sitter/markdown/tree-sitter-markdown"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/toml"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
	"github.com/smacker/go-tree-sitter/yaml"
)

// kind is the role a syntax node plays in the file's structure.
type kind uint8

const (
	kindNone kind = iota
	// kindDef is a definition scored as one unit: function, method, type, constant.
	kindDef
	// kindContainer holds definitions (class, impl, namespace, module): its header comes
	// with its relevant members, its members are scored on their own.
	kindContainer
	// kindWrapper wraps one definition (export, decorators, template): the unit spans the
	// wrapper, the name and role come from the definition inside.
	kindWrapper
	// kindBody is a transparent list of members (class body, declaration list).
	kindBody
	// kindImport is skeleton: package clause, imports, includes.
	kindImport
	// kindComment attaches to the definition that follows it.
	kindComment
	// kindAttr (attributes, annotations standing alone) attaches like a comment.
	kindAttr
	// kindMaybeDef is a statement that defines something when its value is a function
	// (JavaScript's `x.y = function () {...}`, `const f = () => {...}`): a definition when it
	// spans several lines.
	kindMaybeDef
	// kindSection is a document section (Markdown heading and its content, YAML/TOML tables).
	kindSection
)

// langSpec maps a grammar's node types to roles.
type langSpec struct {
	name  string
	get   func() *sitter.Language
	exts  []string
	alias []string
	roles map[string]kind
	// keys marks a configuration language, whose lines are scored by their key paths
	// (keys.go).
	keys bool
}

var cFamily = map[string]kind{
	"function_definition": kindDef, "struct_specifier": kindDef, "enum_specifier": kindDef,
	"union_specifier": kindDef, "type_definition": kindDef, "preproc_function_def": kindDef,
	"preproc_include": kindImport, "comment": kindComment, "declaration_list": kindBody,
	"field_declaration_list": kindBody, "preproc_ifdef": kindBody, "preproc_if": kindBody,
	"linkage_specification": kindBody,
}

func withRoles(base map[string]kind, more map[string]kind) map[string]kind {
	m := make(map[string]kind, len(base)+len(more))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range more {
		m[k] = v
	}
	return m
}

var jsRoles = map[string]kind{
	"function_declaration": kindDef, "generator_function_declaration": kindDef,
	"method_definition": kindDef, "class_declaration": kindContainer, "class": kindContainer,
	"class_body": kindBody, "export_statement": kindWrapper, "import_statement": kindImport,
	"comment": kindComment, "decorator": kindAttr, "lexical_declaration": kindMaybeDef,
	"variable_declaration": kindMaybeDef, "expression_statement": kindMaybeDef,
	"field_definition": kindMaybeDef,
}

var tsRoles = withRoles(jsRoles, map[string]kind{
	"abstract_class_declaration": kindContainer, "interface_declaration": kindDef,
	"type_alias_declaration": kindDef, "enum_declaration": kindDef, "function_signature": kindDef,
	"abstract_method_signature": kindDef, "method_signature": kindDef,
	"public_field_definition": kindMaybeDef, "internal_module": kindContainer, "module": kindContainer,
	"ambient_declaration": kindWrapper, "statement_block": kindBody,
})

// specs lists the supported languages. Order matters only for documentation.
func specs() []langSpec {
	return []langSpec{
		{name: "go", get: golang.GetLanguage, exts: []string{".go"}, alias: []string{"golang"}, roles: map[string]kind{
			"function_declaration": kindDef, "method_declaration": kindDef, "type_declaration": kindDef,
			"const_declaration": kindDef, "var_declaration": kindDef, "import_declaration": kindImport,
			"package_clause": kindImport, "comment": kindComment,
		}},
		{name: "python", get: python.GetLanguage, exts: []string{".py", ".pyi", ".pyw"}, alias: []string{"py", "python3"}, roles: map[string]kind{
			"function_definition": kindDef, "class_definition": kindContainer, "decorated_definition": kindWrapper,
			"block": kindBody, "import_statement": kindImport, "import_from_statement": kindImport,
			"future_import_statement": kindImport, "comment": kindComment,
		}},
		{name: "javascript", get: javascript.GetLanguage, exts: []string{".js", ".mjs", ".cjs", ".jsx"}, alias: []string{"js", "node", "jsx", "ecmascript"}, roles: jsRoles},
		{name: "typescript", get: typescript.GetLanguage, exts: []string{".ts", ".mts", ".cts"}, alias: []string{"ts"}, roles: tsRoles},
		{name: "tsx", get: tsx.GetLanguage, exts: []string{".tsx"}, alias: []string{"typescriptreact"}, roles: tsRoles},
		{name: "java", get: java.GetLanguage, exts: []string{".java"}, roles: map[string]kind{
			"class_declaration": kindContainer, "interface_declaration": kindContainer, "enum_declaration": kindContainer,
			"record_declaration": kindContainer, "annotation_type_declaration": kindDef,
			"method_declaration": kindDef, "constructor_declaration": kindDef, "compact_constructor_declaration": kindDef,
			"field_declaration": kindMaybeDef, "constant_declaration": kindMaybeDef,
			"class_body": kindBody, "interface_body": kindBody, "enum_body": kindBody, "enum_body_declarations": kindBody,
			"import_declaration": kindImport, "package_declaration": kindImport,
			"line_comment": kindComment, "block_comment": kindComment,
		}},
		{name: "rust", get: rust.GetLanguage, exts: []string{".rs"}, alias: []string{"rs"}, roles: map[string]kind{
			"function_item": kindDef, "function_signature_item": kindDef, "struct_item": kindDef, "enum_item": kindDef,
			"union_item": kindDef, "type_item": kindDef, "const_item": kindDef, "static_item": kindDef,
			"macro_definition": kindDef, "trait_item": kindContainer, "impl_item": kindContainer, "mod_item": kindContainer,
			"foreign_mod_item": kindContainer, "declaration_list": kindBody,
			"use_declaration": kindImport, "extern_crate_declaration": kindImport,
			"line_comment": kindComment, "block_comment": kindComment, "attribute_item": kindAttr,
		}},
		{name: "c", get: c.GetLanguage, exts: []string{".c", ".h"}, roles: cFamily},
		{name: "cpp", get: cpp.GetLanguage, exts: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"}, alias: []string{"c++", "cxx"}, roles: withRoles(cFamily, map[string]kind{
			"class_specifier": kindContainer, "struct_specifier": kindContainer, "namespace_definition": kindContainer,
			"template_declaration": kindWrapper, "concept_definition": kindDef, "alias_declaration": kindDef,
			"using_declaration": kindImport,
		})},
		{name: "csharp", get: csharp.GetLanguage, exts: []string{".cs"}, alias: []string{"c#", "cs"}, roles: map[string]kind{
			"class_declaration": kindContainer, "struct_declaration": kindContainer, "interface_declaration": kindContainer,
			"record_declaration": kindContainer, "namespace_declaration": kindContainer,
			"enum_declaration": kindDef, "delegate_declaration": kindDef, "method_declaration": kindDef,
			"constructor_declaration": kindDef, "destructor_declaration": kindDef, "operator_declaration": kindDef,
			"conversion_operator_declaration": kindDef, "indexer_declaration": kindDef, "property_declaration": kindDef,
			"event_declaration": kindDef, "field_declaration": kindMaybeDef,
			"declaration_list": kindBody, "file_scoped_namespace_declaration": kindBody,
			"using_directive": kindImport, "comment": kindComment, "attribute_list": kindAttr,
		}},
		{name: "ruby", get: ruby.GetLanguage, exts: []string{".rb", ".rake", ".gemspec"}, alias: []string{"rb"}, roles: map[string]kind{
			"method": kindDef, "singleton_method": kindDef, "class": kindContainer, "module": kindContainer,
			"singleton_class": kindContainer, "body_statement": kindBody, "comment": kindComment,
		}},
		{name: "php", get: php.GetLanguage, exts: []string{".php", ".phtml"}, roles: map[string]kind{
			"function_definition": kindDef, "method_declaration": kindDef, "class_declaration": kindContainer,
			"interface_declaration": kindContainer, "trait_declaration": kindContainer, "enum_declaration": kindContainer,
			"namespace_definition": kindContainer, "declaration_list": kindBody, "compound_statement": kindBody,
			"namespace_use_declaration": kindImport, "comment": kindComment, "attribute_list": kindAttr,
			"property_declaration": kindMaybeDef, "const_declaration": kindMaybeDef,
		}},
		{name: "bash", get: bash.GetLanguage, exts: []string{".sh", ".bash", ".zsh", ".ksh"}, alias: []string{"sh", "shell", "zsh"}, roles: map[string]kind{
			"function_definition": kindDef, "comment": kindComment,
		}},
		{name: "yaml", get: yaml.GetLanguage, exts: []string{".yaml", ".yml"}, alias: []string{"yml"}, keys: true, roles: map[string]kind{
			"block_mapping_pair": kindSection, "block_sequence_item": kindSection, "comment": kindComment,
			"block_node": kindBody, "block_mapping": kindBody, "block_sequence": kindBody, "document": kindBody, "stream": kindBody,
		}},
		// JSON is YAML 1.2's flow syntax, and the YAML grammar reads it: its members are
		// flow pairs. (JSON with comments is not: a few "//" lines are syntax errors the
		// error share tolerates, more fall back.)
		{name: "json", get: yaml.GetLanguage, exts: []string{".json"}, keys: true, roles: map[string]kind{
			"flow_pair": kindSection, "comment": kindComment,
			"flow_node": kindBody, "flow_mapping": kindBody, "flow_sequence": kindBody, "document": kindBody, "stream": kindBody,
		}},
		{name: "toml", get: toml.GetLanguage, exts: []string{".toml"}, keys: true, roles: map[string]kind{
			"table": kindSection, "table_array_element": kindSection, "comment": kindComment,
		}},
		{name: "markdown", get: markdown.GetLanguage, exts: []string{".md", ".markdown", ".mdx"}, alias: []string{"md"}, roles: map[string]kind{
			"section": kindSection,
		}},
	}
}

// lang is a loaded grammar with its node roles resolved by symbol, and a pool of parsers:
// a tree-sitter parser must not be used by two goroutines at once.
type lang struct {
	name  string
	ts    *sitter.Language
	roles []kind // by symbol
	keys  bool   // a configuration language (langSpec.keys)
	// idle holds parsers between parses. A bounded free list rather than a sync.Pool: a
	// sync.Pool drops its items at GC and the dropped parsers' C memory would then wait for
	// finalizers, which the bindings do not run reliably; here every parser is either idle,
	// in use, or closed by us.
	mu     sync.Mutex
	idle   []*sitter.Parser
	closed bool
}

// maxIdleParsers bounds the parsers kept per language between requests.
const maxIdleParsers = 8

func (l *lang) getParser() *sitter.Parser {
	l.mu.Lock()
	if n := len(l.idle); n > 0 {
		p := l.idle[n-1]
		l.idle = l.idle[:n-1]
		l.mu.Unlock()
		return p
	}
	l.mu.Unlock()
	p := sitter.NewParser()
	p.SetLanguage(l.ts)
	return p
}

func (l *lang) putParser(p *sitter.Parser) {
	l.mu.Lock()
	if !l.closed && len(l.idle) < maxIdleParsers {
		l.idle = append(l.idle, p)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	p.Close()
}

func (l *lang) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.idle {
		p.Close()
	}
	l.idle, l.closed = nil, true
}

func (l *lang) role(n *sitter.Node) kind {
	s := int(n.Symbol())
	if s < len(l.roles) {
		return l.roles[s]
	}
	return kindNone
}

// languages is the scorer's language table, built once per scorer.
type languages struct {
	byName  map[string]*lang
	byExt   map[string]*lang
	all     []*lang
	sniffer *sniffCache
}

func loadLanguages() *languages {
	ls := &languages{byName: map[string]*lang{}, byExt: map[string]*lang{}, sniffer: newSniffCache()}
	for _, sp := range specs() {
		ts := sp.get()
		l := &lang{name: sp.name, ts: ts, roles: make([]kind, ts.SymbolCount()), keys: sp.keys}
		for s := range l.roles {
			l.roles[s] = sp.roles[ts.SymbolName(sitter.Symbol(s))]
		}
		ls.byName[sp.name] = l
		for _, a := range sp.alias {
			ls.byName[a] = l
		}
		for _, e := range sp.exts {
			ls.byExt[e] = l
		}
		ls.all = append(ls.all, l)
	}
	return ls
}

// close frees the idle parsers; parsers in use are freed when their parse ends.
func (ls *languages) close() {
	for _, l := range ls.all {
		l.close()
	}
}

// header returns the language of a ".h" file: C++ when its content says so (classes,
// namespaces, templates, std::, a "-*- C++ -*-" mode line), else C. C and C++ share the ending, and a C++ header read
// with the C grammar is mostly ERROR nodes: of the 577 headers in Debian's fixes, 70 fell
// back to the heuristic for syntax errors when all were read as C, 32 with this choice
// (RESULTS.md, twenty-eighth round).
func (ls *languages) header(lines []string) string {
	if cppEvidence(lines) {
		return "cpp"
	}
	return "c"
}

// Names of the structure-only languages handled without a grammar.
const langRST = "rst"

// rstNames are the hints that name reStructuredText.
var rstNames = []string{langRST, "restructuredtext", "rest"}

// Languages returns the languages a request's language hint can name, sorted, and whether
// hint (in any case, trimmed) is one of them or an alias of one. A hint it does not know is
// not an error to the scorer, which then goes by the path and the content.
func Languages(hint string) (names []string, known bool) {
	h := strings.ToLower(strings.TrimSpace(hint))
	known = slices.Contains(rstNames, h)
	for _, sp := range specs() {
		names = append(names, sp.name)
		known = known || h == sp.name || slices.Contains(sp.alias, h)
	}
	names = append(names, langRST)
	slices.Sort(names)
	return names, known
}

// detect returns the language of a request: the language hint, then the path's extension
// or file name, then the content. "" means unknown.
func (ls *languages) detect(hint, path string, lines []string) string {
	if h := strings.ToLower(strings.TrimSpace(hint)); h != "" {
		if l, ok := ls.byName[h]; ok {
			return l.name
		}
		if slices.Contains(rstNames, h) {
			return langRST
		}
	}
	if path != "" {
		base := strings.ToLower(filepath.Base(path))
		ext := filepath.Ext(base)
		if ext == ".h" {
			return ls.header(lines)
		}
		if l, ok := ls.byExt[ext]; ok {
			return l.name
		}
		switch {
		case ext == ".rst" || ext == ".rest":
			return langRST
		case base == "rakefile" || base == "gemfile" || base == "vagrantfile":
			return "ruby"
		case base == "dockerfile" || base == "makefile":
			return ""
		case base == ".bashrc" || base == ".profile" || base == ".zshrc":
			return "bash"
		}
	}
	return ls.sniffer.sniff(lines)
}
