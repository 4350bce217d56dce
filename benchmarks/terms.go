package benchmarks

import (
	"strings"
	"unicode"
)

// Terms splits text into the lexical baselines' terms: identifiers broken on "_" and
// camelCase boundaries (HTTPServerError -> http, server, error), lowercased, kept when they
// have 3+ characters and are not common English stop words. Digits stay inside a term.
func Terms(text string) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = appendCamelParts(out, text[start:end])
			start = -1
		}
	}
	for i, r := range text {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i) // "_" and every other character end a part
	}
	flush(len(text))
	return out
}

// appendCamelParts splits an ASCII alphanumeric word on case changes and appends the parts
// that qualify as terms.
func appendCamelParts(out []string, w string) []string {
	start := 0
	for i := 1; i < len(w); i++ {
		prev, cur := rune(w[i-1]), rune(w[i])
		lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
		// The last capital of an acronym starts the next word: "HTTPServer" -> HTTP, Server.
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(w) && unicode.IsLower(rune(w[i+1]))
		if lowerToUpper || acronymEnd {
			out = appendTerm(out, w[start:i])
			start = i
		}
	}
	return appendTerm(out, w[start:])
}

func appendTerm(out []string, part string) []string {
	if len(part) < 3 {
		return out
	}
	t := strings.ToLower(part)
	if _, stop := stopWords[t]; stop {
		return out
	}
	return append(out, t)
}

// stopWords are common English words of 3+ letters that carry no topic.
var stopWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`
		about above after again against all also and any are aren because been before being
		below between both but can cannot could did didn does doesn doing don down during each
		few for from further had has hasn have haven having her here hers herself him himself his
		how into isn its itself just let more most mustn myself nor not now off once only other
		our ours ourselves out over own same she should shouldn some such than that the their
		theirs them themselves then there these they this those through too under until very was
		wasn were weren what when where which while who whom why will with won would wouldn you
		your yours yourself yourselves`) {
		m[w] = struct{}{}
	}
	return m
}()
