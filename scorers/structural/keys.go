package structural

import (
	"math"
	"math/bits"
	"regexp"
	"strings"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	sitter "github.com/smacker/go-tree-sitter"
)

// Configuration files (YAML, TOML, JSON) are trees of keys, and a line's meaning is its path:
// "memory: 2Gi" says nothing of which container it limits; "- name: worker", three levels
// up, does. Scored on its own words, as a definition's body line is, the line of another
// container that holds the same words ranks as high, and the lines that say where it is
// rank low. So a configuration's outline also holds its entries, each with the lines that
// identify it, and the scorer reads a line with the identifying lines of every entry that
// encloses it (scoreKeys).

// entry is one mapping entry or sequence item of a configuration file: lines [start, end),
// opened on line start, inside entry parent (-1 at top level; parents precede children).
// ids are further lines that identify an item (which has no key of its own): its first
// entry ("- image: x" under a bare "-"), an entry keyed like a name ("name: worker" below
// "- image: x", "kind: Service") and a name held in its metadata ("metadata:" then
// "name: billing", as every Kubernetes object names itself); -1 when unused.
type entry struct {
	start, end int32
	parent     int32
	ids        [3]int32
	item       bool // a sequence item or TOML array table: identified by its entries, not a key
	entries    int32
}

// Node types of the configuration grammars, by their role in the key tree.
var (
	// keyedTypes are entries named by a key: YAML block and flow pairs (JSON's members),
	// TOML pairs and tables.
	keyedTypes = map[string]bool{"block_mapping_pair": true, "flow_pair": true, "pair": true, "table": true}
	// itemTypes are entries without a key: YAML sequence items and TOML array tables.
	itemTypes = map[string]bool{"block_sequence_item": true, "table_array_element": true}
	// seqTypes hold items as plain children: a YAML flow sequence (a JSON array), a TOML array.
	seqTypes = map[string]bool{"flow_sequence": true, "array": true}
	// openTypes are walked into for the entries they hold; anything else (scalars, keys,
	// comments, anchors) holds none.
	openTypes = map[string]bool{
		"stream": true, "block_node": true, "block_mapping": true,
		"block_sequence": true, "flow_node": true, "flow_mapping": true, "flow_sequence": true,
		"inline_table": true, "array": true,
	}
)

// namingKeys are keys that name the item that holds them, wherever they stand in it.
var namingKeys = map[string]bool{"name": true, "id": true, "key": true, "title": true, "kind": true}

// metadataKey is the key of a mapping that holds the name of the item around it (Kubernetes
// objects: metadata.name).
const metadataKey = "metadata"

// keyWalk collects the entries of a configuration's syntax tree.
type keyWalk struct {
	lines []string
	out   []entry
	walkCheck
	// types caches node kinds by symbol: a node's Type() is a cgo call and a string.
	types map[sitter.Symbol]uint8
}

// Node kinds of keyWalk.types.
const (
	kwOther uint8 = iota
	kwKeyed
	kwItem
	kwSeq
	kwOpen
	// kwDoc is a YAML document: an item when its stream holds others (a Kubernetes
	// manifest's objects, each named by its kind and metadata.name), else only walked into,
	// since a file's one document is the file, and its first line names nothing.
	kwDoc
)

func (w *keyWalk) kind(n *sitter.Node) uint8 {
	s := n.Symbol()
	if k, ok := w.types[s]; ok {
		return k
	}
	t := n.Type()
	k := kwOther
	switch {
	case keyedTypes[t]:
		k = kwKeyed
	case itemTypes[t]:
		k = kwItem
	case seqTypes[t]:
		k = kwSeq
	case openTypes[t]:
		k = kwOpen
	case t == "document":
		k = kwDoc
	}
	w.types[s] = k
	return k
}

// extractKeys returns the entries of a configuration file's tree in source order, parents
// first. A walk with a cursor: configuration files are mostly small nodes, and a cursor's
// steps cost far less than finding children by index.
func extractKeys(w *keyWalk, root *sitter.Node) {
	cur := sitter.NewTreeCursor(root)
	defer cur.Close()
	// stack[d] is the entry open at depth d of the walk (or the one above it), and whether
	// the node at depth d is a sequence, whose named children are items.
	type level struct {
		entry int32
		seq   bool
	}
	stack := []level{{entry: -1}}
	if !cur.GoToFirstChild() {
		return
	}
	docs := 0 // the stream's documents
	for more := true; more; more = cur.GoToNextSibling() {
		if cur.CurrentNode().Type() == "document" {
			docs++
		}
	}
	cur.Reset(root)
	cur.GoToFirstChild()
	for !w.stop() {
		n := cur.CurrentNode()
		up := stack[len(stack)-1]
		// Only nodes that may hold entries are looked at, and only those over several lines
		// are walked into: what one line holds adds nothing to its line (the key walk of a
		// 2,500-line window went from 25 ms to a few).
		k := w.kind(n)
		if k == kwDoc {
			k = kwOpen
			if docs > 1 {
				k = kwItem
			}
		}
		if k != kwOther {
			s, e := span(n)
			this := up.entry
			if (k == kwKeyed || k == kwItem || up.seq) && n.IsNamed() {
				this = w.add(s, e, up.entry, k != kwKeyed)
			}
			if e-s > 1 && cur.GoToFirstChild() {
				stack = append(stack, level{entry: this, seq: k == kwSeq})
				continue
			}
		}
		for !cur.GoToNextSibling() {
			if len(stack) == 1 || !cur.GoToParent() {
				return
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// add records the entry on lines [s, e) inside entry parent, and makes it an identifying line
// of parent when parent is an item and this is its first entry or a naming key's.
func (w *keyWalk) add(s, e int, parent int32, item bool) int32 {
	if e <= s {
		e = s + 1
	}
	idx := int32(len(w.out))
	w.out = append(w.out, entry{start: int32(s), end: int32(e), parent: parent, ids: [3]int32{-1, -1, -1}, item: item})
	if parent < 0 {
		return idx
	}
	p := &w.out[parent]
	p.entries++
	if !p.item {
		w.nameFromMetadata(p, s)
		return idx
	}
	if int32(s) == p.start {
		return idx
	}
	switch {
	case p.entries == 1:
		p.ids[0] = int32(s)
	case p.ids[1] < 0 && s < len(w.lines) && namingKeys[lineKey(w.lines[s])]:
		p.ids[1] = int32(s)
	}
	return idx
}

// nameFromMetadata makes line s, inside entry p, the metadata name of the item around p
// when p is that item's "metadata:" and s is keyed like a name: "name: billing" under the
// "metadata:" of a Deployment names the Deployment, whose spec is a sibling of the metadata
// and not inside it.
func (w *keyWalk) nameFromMetadata(p *entry, s int) {
	if p.parent < 0 || s >= len(w.lines) || int(p.start) >= len(w.lines) {
		return
	}
	item := &w.out[p.parent]
	if item.item && item.ids[2] < 0 && namingKeys[lineKey(w.lines[s])] && lineKey(w.lines[p.start]) == metadataKey {
		item.ids[2] = int32(s)
	}
}

// lineKey is the key a line opens with ("name" for `  - name: web`, `"name": "web",` and
// `name = "web"`), lowercased, or "".
func lineKey(l string) string {
	t := strings.TrimLeft(l, " \t")
	t = strings.TrimLeft(strings.TrimPrefix(t, "-"), " \t")
	t = strings.TrimLeft(t, `"'`)
	k := 0
	for k < len(t) && k < 16 && isIdentByte(t[k]) {
		k++
	}
	if k == 0 {
		return ""
	}
	rest := strings.TrimLeft(strings.TrimLeft(t[k:], `"'`), " \t")
	if rest == "" || rest[0] != ':' && rest[0] != '=' {
		return ""
	}
	return strings.ToLower(t[:k])
}

// Shares of a configuration line's path relevance.
const (
	// memberShare scales the relevance of a line that holds no goal term itself and is
	// relevant only through the entries around it: inside the item the goal names, its
	// lines that match other goal terms come first, the rest of it after them.
	memberShare = 0.85
	// namedKeyShare: an entry whose identifying lines score this share of the best entry's
	// is one the goal names, whose members keep the structural score past the blend (as a
	// named code section's do).
	namedKeyShare = 0.6
	// pathWeight is the weight of a goal term found on an enclosing entry's identifying
	// line rather than on the line itself. The leaf's own words ("memory", "line-length")
	// are what sibling items share; the term that picks the item ("worker", "ruff") is on
	// its key or first entry. Counted once, [tool.black]'s "line-length = 88" scored 0.95
	// of [tool.ruff]'s under a goal about ruff's line length, and a budget kept both.
	pathWeight = 2.0
	// configBlend is the heuristic's share of a configuration line's score (code's is
	// codeBlend). The heuristic reads a line by its own words and spreads a match to its
	// neighbours, which is what key paths correct: at half, its spread put the web
	// service's "ports:" above the api service's under a goal about the api's port. A
	// fifth still orders the lines one path ties by their own match.
	configBlend = 0.2
	// holdLines is the longest entry held together (holdPicked): an item a budget can
	// keep whole. A longer one matched the goal as a container does ("services:" under a
	// goal about one service), and held whole it lifted every service's lines to the
	// level of the one the goal is about.
	holdLines = 30
	// siblingShare scales the lines of an entry whose siblings the goal picks and it
	// does not (scoreKeys).
	siblingShare = 0.8
	// keyFollows is an enclosing key's and identifying line's share of its entry's best
	// line: under code's headerFollows (0.97), because a configuration's keys are a few
	// tokens each and its path's outer keys ("spec:", "template:", "containers:") open
	// the file. At 0.97 a budget's value-per-token order took "spec:" (2 tokens) before
	// "memory: 2Gi" (5), grew a marker-free run from the file's head through the wrong
	// container, and cut the leaf the goal is about (the 33-line Kubernetes example at
	// 110 and 150 tokens, the 467-line manifest at 200); at 0.93 and below the leaf comes
	// first and its keys after it.
	keyFollows = 0.9
)

// scoreKeys scores a configuration file's lines by their key paths: each line by the goal
// terms of its own words and of the identifying lines of every entry around it (each term
// counted once, weighted as the heuristic weighs it: its goal weight times its rarity in
// the file), ranked as code units are, convex in the relevance relative to the best line.
// So under the goal "the worker container runs out of memory", the worker's "memory: 2Gi"
// (memory, limit, worker, container) outranks the sidecar's "memory: 256Mi" (memory, limit,
// container). Then every entry's opening and identifying lines follow its best line, as a
// container's header follows its best member: a kept leaf comes with the keys that say
// where it is, which are short and cost little.
//
// named marks the lines of the entries the goal names (see namedKeyShare). Lines outside
// every entry (a long file's lines outside its parsed windows, comments around documents)
// score as scoreOutline scores lines outside every unit.
func scoreKeys(lines []string, o *outline, a *heuristic.Analysis) (scores []float64, named []bool, picked []int32) {
	n := len(lines)
	ks := o.keys
	nt := len(a.IDF)
	weight := make([]float64, nt)
	for t := range weight {
		weight[t] = a.Query.Terms[t].Weight * a.IDF[t]
	}
	words := (nt + 63) / 64
	// path[k]: the goal terms of entry k's identifying lines and of its ancestors'.
	path := make([]uint64, len(ks)*words)
	idRel := make([]float64, len(ks))
	owner := make([]int32, n)
	for i := range owner {
		owner[i] = -1
	}
	own := make([]uint64, words)
	for k, e := range ks {
		set := path[k*words : (k+1)*words]
		if e.parent >= 0 {
			copy(set, path[int(e.parent)*words:int(e.parent+1)*words])
		}
		clear(own)
		for _, i := range [4]int32{e.start, e.ids[0], e.ids[1], e.ids[2]} {
			if i >= 0 && int(i) < n {
				for _, t := range a.Terms(int(i)) {
					own[t/64] |= 1 << (t % 64)
				}
			}
		}
		idRel[k] = termWeight(own, weight)
		for w := range set {
			set[w] |= own[w]
		}
		for i := int(e.start); i < int(e.end) && i < n; i++ {
			owner[i] = int32(k)
		}
	}
	merged := mergePaths(lines, ks, owner, path, words)

	zl := strongSpan / 2
	for i := 0; i < n; i++ {
		zl = math.Max(zl, a.Lex[i])
	}
	rel := make([]float64, n)
	best := 0.0
	line := make([]uint64, words)
	for i := 0; i < n; i++ {
		k := owner[i]
		if k < 0 {
			continue
		}
		clear(own)
		for _, t := range a.Terms(i) {
			own[t/64] |= 1 << (t % 64)
		}
		set := path[int(k)*words : int(k+1)*words]
		for w := range line {
			line[w] = set[w] &^ own[w]
		}
		ownRel := termWeight(own, weight)
		rel[i] = ownRel + pathWeight*termWeight(line, weight)
		if ownRel == 0 {
			rel[i] *= memberShare
		}
		best = math.Max(best, rel[i])
	}
	// The entries the goal picks among their siblings: their identifying lines match it
	// better than a sibling's do. The lines of the siblings it does not pick count for
	// less, however well they match on their own: under a goal about ruff's line length,
	// [tool.black]'s "line-length = 88" differs from [tool.ruff]'s only by the key above
	// it, and scored 0.95 of it.
	// Siblings are the entries that hold others (items, sections): a leaf beside them
	// ("uses:" beside "with:" in a step) is their parent's identifying line, not a peer.
	low, high := map[int32]float64{}, map[int32]float64{}
	for k, e := range ks {
		if e.end-e.start <= 1 {
			continue
		}
		if v, ok := low[e.parent]; !ok || idRel[k] < v {
			low[e.parent] = idRel[k]
		}
		high[e.parent] = max(high[e.parent], idRel[k])
	}
	factor := make([]float64, len(ks))
	for k, e := range ks {
		factor[k] = 1
		if e.parent >= 0 {
			factor[k] = factor[e.parent]
		}
		if idRel[k] < high[e.parent] && e.end-e.start > 1 && (merged == nil || !merged[k]) {
			// An anchored mapping that entries merge is theirs, not a rival of the
			// entries beside it.
			factor[k] *= siblingShare
		}
	}
	scores = make([]float64, n)
	for i := 0; i < n; i++ {
		switch k := owner[i]; {
		case k < 0:
			scores[i] = unrelated * math.Min(1, a.Lex[i]/zl*4)
		case rel[i] > 0:
			scores[i] = factor[k] * (unitFloor + (1-unitFloor)*math.Pow(rel[i]/best, 1.5))
		}
	}

	// Every entry's best line, children before parents, from the lines' own scores (so a
	// header follows the leaf, not the header below it: a deep path does not fade).
	top := make([]float64, len(ks))
	for i, k := range owner {
		if k >= 0 {
			top[k] = math.Max(top[k], scores[i])
		}
	}
	for k := len(ks) - 1; k >= 0; k-- {
		if p := ks[k].parent; p >= 0 {
			top[p] = math.Max(top[p], top[k])
		}
	}
	bestID := 0.0
	for k, e := range ks {
		if e.end-e.start > 1 {
			bestID = math.Max(bestID, idRel[k])
		}
	}
	named = make([]bool, n)
	for k, e := range ks {
		if idRel[k] > low[e.parent] && e.end-e.start > 1 && e.end-e.start <= holdLines {
			picked = append(picked, int32(k))
		}
		v := keyFollows * top[k]
		for _, i := range [4]int32{e.start, e.ids[0], e.ids[1], e.ids[2]} {
			if i >= 0 && int(i) < n {
				scores[i] = math.Max(scores[i], v)
			}
		}
		if e.end-e.start > 1 && idRel[k] > 0 && idRel[k] >= namedKeyShare*bestID {
			for i := int(e.start); i < int(e.end) && i < n; i++ {
				named[i] = true
			}
		}
	}
	return scores, named, picked
}

// holdPicked keeps the lines of each picked entry (scoreKeys) at or above unitCohesion of
// its best line, as a code unit's are. A budget fills runs that
// need no new marker first, and a path's keys lie apart: the worker's "- name: worker" seven
// lines above its memory limit, the release job's "release:" eleven lines above its upload
// step. Held together, the item is one run from its identifying line to the line that
// matters, rather than the leaf and a marker, and its key spent on another run (the
// file's head, with "jobs:", was kept instead of "release:" and its "steps:").
func holdPicked(scores []float64, ks []entry, picked []int32) {
	n := len(scores)
	for _, k := range picked {
		e := ks[k]
		end := min(int(e.end), n)
		best := 0.0
		for i := int(e.start); i < end; i++ {
			best = max(best, scores[i])
		}
		for i := int(e.start); i < end; i++ {
			scores[i] = max(scores[i], unitCohesion*best)
		}
	}
}

// termWeight is the summed weight of the terms in set.
func termWeight(set []uint64, weight []float64) float64 {
	s := 0.0
	for w, word := range set {
		for word != 0 {
			b := word & -word
			s += weight[w*64+bits.TrailingZeros64(b)]
			word ^= b
		}
	}
	return s
}

// formFeedsAsTabs rewrites JSON's form-feed escapes (\f) in src as tab escapes (\t), in
// place: tree-sitter-yaml, which reads JSON, rejects \f in a double-quoted scalar, and one
// such key (JSON Schema's test suite has them) made the whole object a syntax error and the
// file fall back. Same length, so no byte or line moves; an escaped backslash before an f
// ("\\f") is stepped over whole.
func formFeedsAsTabs(src []byte) {
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '\\' {
			continue
		}
		if src[i+1] == 'f' {
			src[i+1] = 't'
		}
		i++
	}
}

// YAML anchors and merge keys: "x-common: &common" names a mapping, and "<<: *common" in a
// service merges it there, so the anchored lines are that service's too (its restart
// policy, its logging), though they stand under another key.
var (
	reAnchor = regexp.MustCompile(`^\s*(?:-\s+)?[^\s#][^#]*?:\s*&([\w.-]+)\s*(?:#.*)?$`)
	reMerge  = regexp.MustCompile(`^\s*(?:-\s+)?<<\s*:\s*(.+)$`)
	reAlias  = regexp.MustCompile(`\*([\w.-]+)`)
)

// mergePaths adds to the path terms of every entry inside an anchored mapping the path terms
// of each entry that merges it ("<<: *name"): under a goal about the api service's restart
// policy, the "restart:" of the mapping the api merges reads as the api's. Anchors come
// before their aliases in YAML, and an anchor merged by several entries reads as each of
// theirs. path holds words uint64s an entry, parents before children (scoreKeys). It reports
// which entries are merged somewhere (nil if none).
func mergePaths(lines []string, ks []entry, owner []int32, path []uint64, words int) (merged []bool) {
	anchors := map[string]int32{}
	for k, e := range ks {
		if int(e.start) >= len(lines) {
			continue
		}
		if l := lines[e.start]; strings.IndexByte(l, '&') >= 0 {
			if m := reAnchor.FindStringSubmatch(l); m != nil {
				anchors[m[1]] = int32(k)
			}
		}
	}
	if len(anchors) == 0 {
		return nil
	}
	var extra []uint64 // terms merged into an anchored entry, by entry
	for i, l := range lines {
		if owner[i] < 0 || !strings.Contains(l, "<<") {
			continue
		}
		m := reMerge.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		// The "<<" pair is an entry of its own, inside the mapping that merges.
		into := owner[i]
		if ks[into].start == int32(i) {
			into = ks[into].parent
		}
		if into < 0 {
			continue
		}
		for _, al := range reAlias.FindAllStringSubmatch(m[1], -1) {
			a, ok := anchors[al[1]]
			if !ok || a == into {
				continue
			}
			if extra == nil {
				extra = make([]uint64, len(ks)*words)
				merged = make([]bool, len(ks))
			}
			merged[a] = true
			for w := range words {
				extra[int(a)*words+w] |= path[int(into)*words+w]
			}
		}
	}
	if extra == nil {
		return nil
	}
	// Down the anchored entries' subtrees, parents first.
	for k, e := range ks {
		if e.parent >= 0 {
			for w := range words {
				extra[k*words+w] |= extra[int(e.parent)*words+w]
			}
		}
		for w := range words {
			path[k*words+w] |= extra[k*words+w]
		}
	}
	return merged
}
