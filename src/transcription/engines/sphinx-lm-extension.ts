/**
 * Adds words to a PocketSphinx trie language model (the `.lm.bin` of pocketsphinx-en-us, sphinxbase 5prealpha's
 * "Trie Language Model" format) without rewriting its n-grams. Pure: bytes in, bytes out.
 *
 * Why patch the binary: an n-gram search only finds words its language model holds, and the usual route (convert to
 * ARPA, add unigrams, convert back) is closed here: Debian's `sphinx_lm_convert` aborts writing the shipped en-us
 * model as ARPA (its header counts 6 more bigrams than its trie holds; fixed upstream only in 2026), and reading a
 * 3.7-million-n-gram ARPA text in every chunk's process would cost seconds each. The layout (ngram_model_trie.c,
 * lm_trie.c): the header, the order, one uint32 count per order, the quantisation tables, counts[0] + 1 unigrams of
 * { float prob, float backoff, uint32 next } (the last a sentinel whose `next` ends the bigrams), the bit-packed
 * bigrams and trigrams, then the words as NUL-terminated strings. A word's id is its place in that list. New words are
 * appended as unigrams without bigrams (`next` = the sentinel's): the packed n-grams stay byte for byte, as long as the
 * number of bits a word id takes in them (from counts[0]) does not change.
 */

const header = "Trie Language Model";
/** Probabilities are stored as logarithms in base 1.0001 (PocketSphinx's default -logbase). */
const logBase = Math.log10(1.0001);
const unigramBytes = 12;

export type TrieLanguageModel = { order: number; counts: number[]; unigramsAt: number; wordsAt: number; words: string[] };
/** A word to add or raise, with the unigram log10 probability it gets at least. */
export type UnigramBoost = { word: string; log10Probability: number };

export class LanguageModelFormatError extends Error {}

const requiredBits = (max: number) => (max === 0 ? 0 : Math.floor(Math.log2(max)) + 1);
/** Bytes of one packed n-gram array (lm_trie.c base_size): one extra entry, rounded up, plus 8 bytes of slack. */
const packedBytes = (entries: number, maxVocabulary: number, otherBits: number) =>
  Math.floor(((1 + entries) * (requiredBits(maxVocabulary) + otherBits) + 7) / 8) + 8;

/** Reads the layout, checking that the sizes it implies add up to the file's: anything else is not this format. */
export function readTrieLanguageModel(bytes: Uint8Array): TrieLanguageModel {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 64 || new TextDecoder("latin1").decode(bytes.subarray(0, header.length)) !== header)
    throw new LanguageModelFormatError("not a trie language model");
  let at = header.length;
  const order = bytes[at++]!;
  if (order < 2 || order > 6) throw new LanguageModelFormatError(`unexpected order ${order}`);
  const counts: number[] = [];
  for (let i = 0; i < order; i++, at += 4) counts.push(view.getUint32(at, true));
  // Quantisation: a 4-byte placeholder, then 2^16 floats per probability and backoff table (lm_trie_quant.c).
  at += 4 + ((order - 2) * 2 + 1) * 65536 * 4;
  const unigramsAt = at;
  at += (counts[0]! + 1) * unigramBytes;
  for (let i = 1; i < order - 1; i++) at += packedBytes(counts[i]!, counts[0]!, 32 + requiredBits(counts[i + 1]!));
  at += packedBytes(counts[order - 1]!, counts[0]!, 16);
  if (at + 4 > bytes.byteLength) throw new LanguageModelFormatError("truncated");
  const wordBytes = view.getInt32(at, true);
  const wordsAt = at + 4;
  if (wordsAt + wordBytes !== bytes.byteLength) throw new LanguageModelFormatError("sizes do not add up to the file's");
  const words = new TextDecoder()
    .decode(bytes.subarray(wordsAt, wordsAt + wordBytes))
    .split("\0")
    .slice(0, -1);
  if (words.length !== counts[0]) throw new LanguageModelFormatError("word list and unigram count differ");
  return { order, counts, unigramsAt, wordsAt, words };
}

/**
 * The model with each boosted word's unigram at least `log10Probability`: raised where the word is there (which
 * matters where the decoder backs off to unigrams, as it does around a rare word), appended where it is not.
 */
export function extendTrieLanguageModel(bytes: Uint8Array, boosts: readonly UnigramBoost[]): Uint8Array {
  const model = readTrieLanguageModel(bytes);
  const ids = new Map(model.words.map((word, id) => [word, id]));
  const added = [...new Set(boosts.map((b) => b.word))].filter((word) => !ids.has(word));
  const unigramCount = model.counts[0]!;
  if (requiredBits(unigramCount + added.length) !== requiredBits(unigramCount))
    throw new LanguageModelFormatError("too many new words for this model's packed word ids");
  const encoder = new TextEncoder();
  const newWordBytes = added.map((word) => encoder.encode(`${word}\0`));
  const extraWordBytes = newWordBytes.reduce((sum, b) => sum + b.byteLength, 0);
  const out = new Uint8Array(bytes.byteLength + added.length * unigramBytes + extraWordBytes);
  const view = new DataView(out.buffer);
  const sentinelAt = model.unigramsAt + unigramCount * unigramBytes;
  // Everything up to the sentinel unigram, the new unigrams, then the sentinel and the packed n-grams unchanged.
  out.set(bytes.subarray(0, sentinelAt), 0);
  const sentinel = new DataView(bytes.buffer, bytes.byteOffset + sentinelAt, unigramBytes);
  const bigramsEnd = sentinel.getUint32(8, true);
  for (let i = 0; i < added.length; i++) {
    const at = sentinelAt + i * unigramBytes;
    view.setFloat32(at, -99 / logBase, true); // raised to the word's boost below
    view.setFloat32(at + 4, 0, true);
    view.setUint32(at + 8, bigramsEnd, true);
  }
  const shift = added.length * unigramBytes;
  out.set(bytes.subarray(sentinelAt, model.wordsAt - 4), sentinelAt + shift);
  view.setUint32(header.length + 1, unigramCount + added.length, true);
  view.setInt32(model.wordsAt - 4 + shift, bytes.byteLength - model.wordsAt + extraWordBytes, true);
  out.set(bytes.subarray(model.wordsAt), model.wordsAt + shift);
  let at = bytes.byteLength + shift;
  for (const word of newWordBytes) {
    out.set(word, at);
    at += word.byteLength;
  }
  for (const [i, word] of added.entries()) ids.set(word, unigramCount + i);
  for (const { word, log10Probability } of boosts) {
    const probAt = model.unigramsAt + ids.get(word)! * unigramBytes;
    const boosted = Math.min(0, log10Probability) / logBase;
    if (view.getFloat32(probAt, true) < boosted) view.setFloat32(probAt, boosted, true);
  }
  return out;
}
