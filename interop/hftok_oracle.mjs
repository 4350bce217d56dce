// hftok_oracle.mjs tokenizes with Hugging Face's own JavaScript implementation of
// tokenizer.json (@huggingface/tokenizers, pinned in package.json), as the reference the Go
// port in scorers/onnx/hftok is compared against by its parity test (parity_test.go).
//
// It reads one JSON document on stdin:
//   {"tokenizers": {"name": <tokenizer.json object>, ...},
//    "cases": [{"tok": "name", "a": "...", "b": "..." | null, "max_length": 0}, ...]}
// and writes one JSON array, an element per case: {"ids": [...], "type_ids": [...] | null}.
//
// Three things the JavaScript port does not do the way the Rust crate (the ground truth) does
// are done here as the crate does them, so that every difference left is one in the Go port:
//
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
  const added = tok.added_tokens_map;
  return tokens.map((t) => added.get(t)?.id ?? tok.model.tokens_to_ids.get(t) ?? tok.model.unk_token_id);
}

// post adds the special tokens as Tokenizer.tokenize_helper does.
function post(tok, t1, t2) {
  return tok.post_processor ? tok.post_processor(t1, t2) : { tokens: [...t1, ...(t2 ?? [])] };
}

function encode(tok, { a, b, max_length }) {
  // Tokenizer.encode is not used: it takes an empty text_pair for no pair (text_pair || null),
  // where the crate encodes a pair whose second sequence is empty.
  let t1 = tok.encode_text(a);
  let t2 = b === null ? null : tok.encode_text(b);
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
const toks = {};
for (const [name, json] of Object.entries(input.tokenizers)) {
  toks[name] = new Tokenizer(json, {});
  patchWhitespace(toks[name].pre_tokenizer);
}
const out = input.cases.map((c) => encode(toks[c.tok], c));
process.stdout.write(JSON.stringify(out));
