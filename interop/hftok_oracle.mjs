// hftok_oracle.mjs tokenizes with Hugging Face's own JavaScript implementation of
// tokenizer.json (@huggingface/tokenizers, pinned in package.json), as the reference the Go
// port in scorers/onnx/hftok is compared against by its parity test (parity_test.go).
//
// It reads one JSON document on stdin:
//   {"tokenizers": {"name": <tokenizer.json object>, ...},
//    "cases": [{"tok": "name", "a": "...", "b": "..." | null, "max_length": 0}, ...]}
// and writes one JSON array, an element per case:
//   {"ids": [...], "type_ids": [...] | null, "port_ids": [...]}
// where port_ids are the ids the JavaScript port's own added-token splitting gives (below).
//
// Four things the JavaScript port does not do the way the Rust crate (the ground truth) does
// are done here as the crate does them, so that every difference left is one in the Go port:
//
//   - Added tokens are cut out of the text as the crate's AddedVocabulary does
//     (tokenizers/src/tokenizer/added_vocabulary.rs: extract_and_normalize, find_matches,
//     refresh_added_tokens); crateEncodeText does that and hands the pieces left to the port's
//     normalizer, pre-tokenizer and model. The port's encode_text departs from the crate in
//     that it ignores single_word; strips with String.trim's whitespace (U+FEFF, not U+0085)
//     rather than the regex crate's \s; matches normalized tokens on the raw text when there
//     is no normalizer, where the crate matches them in the second pass after the raw ones;
//     takes any piece equal to an added token's content for that token even where the crate
//     found no match; and puts every added token into the model's vocabulary, so WordPiece can
//     match one inside a word. The port's own result is returned too (port_ids), so the test
//     can check crateEncodeText against it where none of that applies.
//   - An empty second text is a pair (Tokenizer.encode takes it for none).
//   - The Whitespace pre-tokenizer is the crate's regex \w+|[^\w\s]+ (regex crate, Unicode:
//     \w is Alphabetic, Mark, Nd, Pc and Join_Control; \s is White_Space); the JavaScript
//     port uses an ASCII-only \w (tokenizers/src/pre_tokenizers/whitespace.rs).
//   - Truncation, which the JavaScript port lacks, is the crate's longest_first
//     (tokenizers/src/utils/truncation.rs): with n1 <= n2 the lengths of the shorter and the
//     longer side and m the budget left by the special tokens, the shorter keeps n1 and the
//     longer m - n1 when n1 <= m/2, and otherwise they get floor(m/2) and ceil(m/2), the
//     extra token going to the longer side (the second on a tie).
import { Tokenizer, WhitespacePreTokenizer } from "@huggingface/tokenizers";

const W = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\u200C\\u200D";
const rustWhitespace = new RegExp(`[${W}]+|[^${W}\\p{White_Space}]+`, "gu");

// patchWhitespace swaps in the crate's Whitespace regex wherever the pre-tokenizer tree has one.
function patchWhitespace(pre) {
  if (!pre) return;
  if (pre instanceof WhitespacePreTokenizer) {
    pre.pre_tokenize_text = (text) => text.match(rustWhitespace) || [];
  }
  for (const child of pre.tokenizers ?? []) patchWhitespace(child);
}

// longestFirst returns the lengths the crate's longest_first truncation keeps of two sides.
function longestFirst(len1, len2, max) {
  if (len1 + len2 <= max) return [len1, len2];
  let [n1, n2] = len1 > len2 ? [len2, len1] : [len1, len2];
  const swap = len1 > len2;
  n2 = n1 > max ? n1 : Math.max(n1, max - n1);
  if (n1 + n2 > max) {
    n1 = Math.floor(max / 2);
    n2 = n1 + (max % 2);
  }
  return swap ? [n2, n1] : [n1, n2];
}

function idsOf(tok, tokens) {
  const added = tok.crate_added ?? tok.added_tokens_map;
  return tokens.map((t) => added.get(t)?.id ?? tok.model.tokens_to_ids.get(t) ?? tok.model.unk_token_id);
}

// The regex crate's \w and \s, which find_matches uses for single_word, lstrip and rstrip.
const WORD = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
const endsWithWord = new RegExp(`${WORD}$`, "u");
const startsWithWord = new RegExp(`^${WORD}`, "u");
const trailingSpace = /\p{White_Space}+$/u;
const leadingSpace = /^\p{White_Space}+/u;

// crateTries returns the added tokens of the crate's two tries (refresh_added_tokens): the
// special tokens, then the others, split by normalized, a normalized one's pattern being its
// content normalized.
function crateTries(tok, json) {
  const all = [...json.added_tokens.filter((a) => a.special), ...json.added_tokens.filter((a) => !a.special)];
  const raw = [];
  const normalized = [];
  for (const a of all) {
    if (a.normalized) {
      normalized.push({ ...a, pattern: tok.normalizer ? tok.normalizer(a.content) : a.content });
    } else {
      raw.push({ ...a, pattern: a.content });
    }
  }
  return { raw, normalized };
}

// findMatches cuts s around the tokens of one trie as the crate's find_matches does: the
// leftmost match, the longest there (MatchKind::LeftmostLongest), each search resuming where
// the last match ended; a single_word match touching a word character is dropped; lstrip and
// rstrip take the whitespace around. It returns the pieces: {text} or {token}.
function findMatches(s, trie) {
  const out = [];
  let done = 0;
  let from = 0;
  for (;;) {
    let start = -1;
    let tok = null;
    for (let i = from; i < s.length && tok === null; i++) {
      for (const t of trie) {
        if (s.startsWith(t.pattern, i) && (tok === null || t.pattern.length > tok.pattern.length)) {
          start = i;
          tok = t;
        }
      }
    }
    if (tok === null) break;
    let stop = start + tok.pattern.length;
    from = stop;
    if (tok.single_word && (endsWithWord.test(s.slice(0, start)) || startsWithWord.test(s.slice(stop)))) continue;
    if (tok.lstrip) start = Math.max(s.slice(0, start).replace(trailingSpace, "").length, done);
    if (tok.rstrip) stop = s.length - s.slice(stop).replace(leadingSpace, "").length;
    if (done < start) out.push({ text: s.slice(done, start) });
    out.push({ token: tok.content });
    done = stop;
  }
  if (done < s.length) out.push({ text: s.slice(done) });
  return out;
}

// crateEncodeText is the port's encode_text with the crate's extract_and_normalize.
function crateEncodeText(tok, text) {
  if (text === null) return null;
  const out = [];
  for (const piece of findMatches(text, tok.crate_tries.raw)) {
    if (piece.token !== undefined) {
      out.push(piece.token);
      continue;
    }
    const normalized = tok.normalizer ? tok.normalizer(piece.text) : piece.text;
    for (const sub of findMatches(normalized, tok.crate_tries.normalized)) {
      if (sub.token !== undefined) {
        out.push(sub.token);
      } else {
        const words = tok.pre_tokenizer ? tok.pre_tokenizer(sub.text, {}) : [sub.text];
        out.push(...tok.model(words));
      }
    }
  }
  return out;
}

// post adds the special tokens as Tokenizer.tokenize_helper does.
function post(tok, t1, t2) {
  return tok.post_processor ? tok.post_processor(t1, t2) : { tokens: [...t1, ...(t2 ?? [])] };
}

function encode(tok, encodeText, { a, b, max_length }) {
  // Tokenizer.encode is not used: it takes an empty text_pair for no pair (text_pair || null),
  // where the crate encodes a pair whose second sequence is empty.
  let t1 = encodeText(a);
  let t2 = b === null ? null : encodeText(b);
  if (max_length) {
    // Truncate the sides as the crate does before the post-processor adds the special tokens.
    const full = post(tok, t1, t2);
    const budget = Math.max(0, max_length - (full.tokens.length - t1.length - (t2?.length ?? 0)));
    if (t2 === null) {
      t1 = t1.slice(0, budget);
    } else {
      const [n1, n2] = longestFirst(t1.length, t2.length, budget);
      t1 = t1.slice(0, n1);
      t2 = t2.slice(0, n2);
    }
  }
  const out = post(tok, t1, t2);
  return { ids: idsOf(tok, out.tokens), type_ids: out.token_type_ids ?? null };
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
// Each tokenizer is built twice: as the port builds it, and the crate's way, without the added
// tokens the port puts into the model's vocabulary.
const ports = {};
const crates = {};
for (const [name, json] of Object.entries(input.tokenizers)) {
  const port = new Tokenizer(json, {});
  patchWhitespace(port.pre_tokenizer);
  ports[name] = port;
  const crate = new Tokenizer(json, {});
  patchWhitespace(crate.pre_tokenizer);
  crate.crate_tries = crateTries(crate, json);
  crate.crate_added = new Map();
  for (const a of json.added_tokens) {
    crate.crate_added.set(a.content, a);
    if (!Object.hasOwn(json.model.vocab, a.content)) crate.model.tokens_to_ids.delete(a.content);
  }
  crates[name] = crate;
}
const out = input.cases.map((c) => {
  const crate = crates[c.tok];
  const port = ports[c.tok];
  const want = encode(crate, (text) => crateEncodeText(crate, text), c);
  want.port_ids = encode(port, (text) => port.encode_text(text), c).ids;
  return want;
});
process.stdout.write(JSON.stringify(out));
