/**
 * Audio as the Realtime protocol carries it: `input_audio_buffer.append` holds 16-bit little-endian PCM in base64.
 * Decoding is strict, since a lenient decoder (Buffer's skips unknown characters) would turn a garbled frame into noise
 * the recognizer then transcribes; each refusal says why, in words an `error` event can show.
 */

export type DecodedPcm = { ok: true; samples: Int16Array } | { ok: false; reason: string };

/** The base64 alphabet and its padding, nothing else (no whitespace, no URL-safe letters). One character class: no backtracking. */
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;
const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Decodes base64 PCM16 (little-endian) into samples. The size is checked from the text's length before anything is
 * decoded or scanned, so an oversized frame costs nothing. An empty text is zero samples.
 */
export function decodePcm16Base64(text: string, maxBytes: number): DecodedPcm {
  if (text.length % 4 !== 0) return refuse("the audio is not valid base64: its length is not a multiple of 4 (is the padding missing?)");
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const byteCount = (text.length / 4) * 3 - padding;
  if (byteCount > maxBytes) return refuse(`the audio is too large: ${byteCount} bytes in one event, at most ${maxBytes}`);
  if (!base64Text.test(text)) {
    return refuse("the audio is not valid base64: it holds characters outside the base64 alphabet (A-Z, a-z, 0-9, +, /, = padding at the end)");
  }
  if (!canonicalTail(text, padding)) return refuse("the audio is not valid base64: the bits before its padding are not zero");
  if (byteCount % 2 !== 0) return refuse(`the audio is not 16-bit PCM: ${byteCount} bytes is an odd count`);
  const bytes = new Uint8Array(byteCount);
  bytes.set(Buffer.from(text, "base64"));
  if (!hostIsLittleEndian) swapBytePairs(bytes);
  return { ok: true, samples: new Int16Array(bytes.buffer) };
}

function refuse(reason: string): DecodedPcm {
  return { ok: false, reason };
}

/** With padding, the last letter's unused low bits must be zero (RFC 4648 section 3.5), so each byte string has one encoding. */
function canonicalTail(text: string, padding: number): boolean {
  if (padding === 0) return true;
  const last = base64Value(text.charCodeAt(text.length - padding - 1));
  return padding === 2 ? (last & 0b1111) === 0 : (last & 0b11) === 0;
}

function base64Value(code: number): number {
  if (code >= 65 && code <= 90) return code - 65;
  if (code >= 97 && code <= 122) return code - 71;
  if (code >= 48 && code <= 57) return code + 4;
  return code === 43 ? 62 : 63;
}

function swapBytePairs(bytes: Uint8Array): void {
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    const first = bytes[i]!;
    bytes[i] = bytes[i + 1]!;
    bytes[i + 1] = first;
  }
}
