/**
 * A whisper.cpp model file (the legacy ggml format `whisper_model_load` reads) with tiny random weights, so
 * that the whisper engine runs for real in `npm test` with no model download. It recognises nothing: it proves
 * the path (load, mel, encoder, decoder, timestamps, cancellation), not accuracy.
 *
 * Layout, as whisper.cpp reads it (src/whisper.cpp, whisper_model_load; all little-endian):
 *   magic "ggml" (u32 0x67676d6c) · 11 × i32 hparams · mel filters (i32 n_mel, i32 n_fft, f32[n_mel × n_fft])
 *   · vocabulary (i32 count, then u32 length + bytes each) · tensors until end of file, each:
 *   i32 n_dims, i32 name length, i32 type (0 f32, 1 f16), i32 ne[n_dims] (ggml order, fastest first), name, data.
 * The loader wants every tensor it expects, by name and shape, and no other.
 *
 * n_vocab 51,865 makes it multilingual (so languages and language detection are exercised; 51,864 with `englishOnly`
 * makes it like the `*.en` models): whisper.cpp adds the special tokens (end of text, start, the 99 languages,
 * timestamps) after the 50,257 text tokens written here. The file is 2.4 MB (16-wide states, f16 matrices).
 * Two decoder layers would make whisper.cpp take it for a distilled model and turn timestamps off, so there is one.
 */
import { writeFileSync } from "node:fs";

/** `seed`: the same seed writes the same file (1 unless given). `englishOnly`: a vocabulary like the `*.en` models'. */
export type TinyWhisperOptions = { seed?: number; englishOnly?: boolean };

type Shape = { state: number; heads: number; audioLayers: number; textLayers: number; textContext: number; vocabulary: number };
const shape = { state: 16, heads: 2, audioLayers: 1, textLayers: 1, textContext: 128 };
const textTokens = 50257;
const audioContext = 1500;
const nMels = 80;
const nFft = 201;
const ggmlMagic = 0x67676d6c;
/** whisper.cpp's token_beg (<|0.00|>), the first timestamp token: one further in a multilingual vocabulary. */
const firstTimestamp = (vocabulary: number) => (vocabulary > 51_864 ? 50_364 : 50_363);

type Tensor = { name: string; ne: number[]; half: boolean; values: (i: number) => number };

/** mulberry32: a small seeded generator, so the same seed writes the same file. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The text tokens: the 256 bytes (as whisper's own vocabulary has, so that any prompt can be tokenised), then
 * readable made-up words (" bako", " tumire", …), so that what the model says is printable.
 */
function tokenBytes(id: number): Uint8Array {
  if (id < 256) return Uint8Array.of(id);
  const consonants = "bdfgklmnprstvz";
  const vowels = "aeiou";
  let word = " ";
  for (let n = id - 256; word.length === 1 || n > 0; n = Math.floor(n / 70)) {
    const syllable = n % 70;
    word += consonants[Math.floor(syllable / 5)]! + vowels[syllable % 5]!;
  }
  return new TextEncoder().encode(word);
}

/** Triangular filters spread evenly over the mel scale, as whisper's preprocessing has (the exact shape does not matter here). */
function melFilters(): Float32Array {
  const filters = new Float32Array(nMels * nFft);
  const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const edges = Array.from({ length: nMels + 2 }, (_, i) => (hz((mel(8000) * i) / (nMels + 1)) / 8000) * (nFft - 1));
  for (let m = 0; m < nMels; m++) {
    const [left, centre, right] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    for (let k = 0; k < nFft; k++) {
      const rise = (k - left) / Math.max(centre - left, 1e-6);
      const fall = (right - k) / Math.max(right - centre, 1e-6);
      filters[m * nFft + k] = Math.max(0, Math.min(rise, fall)) * (2 / Math.max(right - left, 1));
    }
  }
  return filters;
}

function tensors(shape: Shape, random: () => number): Tensor[] {
  const d = shape.state;
  const gaussian = (scale: number) => () => scale * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const one = () => 1;
  const zero = () => 0;
  const matrix = (name: string, ne: number[], scale = 0.2) => ({ name, ne, half: true, values: gaussian(scale) });
  const vector = (name: string, n: number, values = zero) => ({ name, ne: [n], half: false, values });
  const sinusoid = (i: number) => {
    const [position, channel] = [Math.floor(i / d), i % d];
    const rate = 10_000 ** (-(2 * Math.floor(channel / 2)) / d);
    return channel % 2 === 0 ? Math.sin(position * rate) : Math.cos(position * rate);
  };
  const attention = (prefix: string) => [
    vector(`${prefix}_ln.weight`, d, one),
    vector(`${prefix}_ln.bias`, d),
    ...["query", "key", "value", "out"].map((part) => matrix(`${prefix}.${part}.weight`, [d, d])),
    ...["query", "value", "out"].map((part) => vector(`${prefix}.${part}.bias`, d)),
  ];
  const block = (prefix: string) => [
    ...attention(`${prefix}.attn`),
    vector(`${prefix}.mlp_ln.weight`, d, one),
    vector(`${prefix}.mlp_ln.bias`, d),
    matrix(`${prefix}.mlp.0.weight`, [d, 4 * d]),
    vector(`${prefix}.mlp.0.bias`, 4 * d),
    matrix(`${prefix}.mlp.2.weight`, [4 * d, d]),
    vector(`${prefix}.mlp.2.bias`, d),
  ];
  // The decoder's output follows its position (a large positional embedding) through confident logits (large token
  // embeddings, which the output shares), so it decodes varied made-up words at temperature 0 without whisper.cpp's
  // fallback to five sampled decoders at six temperatures; timestamps a little larger, so that a segment ends after a
  // few words and the decoding reaches the end of short audio soon.
  const beg = firstTimestamp(shape.vocabulary);
  const tokens = gaussian(3);
  const timestamps = gaussian(3 * 1.15);
  const encoder = Array.from({ length: shape.audioLayers }, (_, i) => block(`encoder.blocks.${i}`)).flat();
  const decoder = Array.from({ length: shape.textLayers }, (_, i) => [...block(`decoder.blocks.${i}`), ...attention(`decoder.blocks.${i}.cross_attn`)]).flat();
  return [
    { name: "encoder.positional_embedding", ne: [d, audioContext], half: false, values: sinusoid },
    matrix("encoder.conv1.weight", [3, nMels, d]),
    { name: "encoder.conv1.bias", ne: [1, d], half: false, values: zero },
    matrix("encoder.conv2.weight", [3, d, d]),
    { name: "encoder.conv2.bias", ne: [1, d], half: false, values: zero },
    vector("encoder.ln_post.weight", d, one),
    vector("encoder.ln_post.bias", d),
    ...encoder,
    { name: "decoder.positional_embedding", ne: [d, shape.textContext], half: false, values: gaussian(10) },
    { name: "decoder.token_embedding.weight", ne: [d, shape.vocabulary], half: true, values: (i) => (Math.floor(i / d) >= beg ? timestamps() : tokens()) },
    vector("decoder.ln.weight", d, one),
    vector("decoder.ln.bias", d),
    ...decoder,
  ];
}

/** The vocabulary section: the count, then each text token as its length and bytes. */
function textTokenBytes(): Uint8Array {
  const tokens = Array.from({ length: textTokens }, (_, id) => tokenBytes(id));
  const bytes = new Uint8Array(4 + tokens.reduce((sum, token) => sum + 4 + token.length, 0));
  const view = new DataView(bytes.buffer);
  view.setInt32(0, textTokens, true);
  let at = 4;
  for (const token of tokens) {
    view.setUint32(at, token.length, true);
    bytes.set(token, at + 4);
    at += 4 + token.length;
  }
  return bytes;
}

/** The model file's bytes: a few MB, written in well under a second. */
export function tinyWhisperModel({ seed = 1, englishOnly = false }: TinyWhisperOptions = {}): Uint8Array {
  const random = seeded(seed);
  const vocabulary = englishOnly ? 51_864 : 51_865;
  const header = [
    vocabulary,
    audioContext,
    shape.state,
    shape.heads,
    shape.audioLayers,
    shape.textContext,
    shape.state,
    shape.heads,
    shape.textLayers,
    nMels,
    1,
  ];
  const parts: Uint8Array[] = [new Uint8Array(new Int32Array([ggmlMagic, ...header, nMels, nFft]).buffer), new Uint8Array(melFilters().buffer)];
  const encoder = new TextEncoder();
  parts.push(textTokenBytes());
  for (const tensor of tensors({ ...shape, vocabulary }, random)) {
    const name = encoder.encode(tensor.name);
    parts.push(new Uint8Array(new Int32Array([tensor.ne.length, name.length, tensor.half ? 1 : 0, ...tensor.ne]).buffer), name);
    const count = tensor.ne.reduce((a, b) => a * b, 1);
    const data = tensor.half ? new Float16Array(count) : new Float32Array(count);
    for (let i = 0; i < count; i++) data[i] = tensor.values(i);
    parts.push(new Uint8Array(data.buffer));
  }
  return Buffer.concat(parts);
}

/** Writes the model to `path` and returns the path. */
export function writeTinyWhisperModel(path: string, options: TinyWhisperOptions = {}): string {
  writeFileSync(path, tinyWhisperModel(options));
  return path;
}
