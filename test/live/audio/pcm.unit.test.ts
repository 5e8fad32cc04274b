import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodePcm16Base64 } from "../../../src/live/audio/pcm.ts";

/** Base64 PCM16 as `input_audio_buffer.append` carries it: decoded exactly, or refused with a reason. */

const encode = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString("base64");
const reasonOf = (text: string, maxBytes = 1 << 20) => {
  const decoded = decodePcm16Base64(text, maxBytes);
  if (decoded.ok) throw new Error(`expected a refusal of ${JSON.stringify(text.slice(0, 20))}`);
  return decoded.reason;
};

describe("decodePcm16Base64", () => {
  test("given any samples encoded little-endian, when decoded, then the same samples come back", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 300 }), (values) => {
        const samples = Int16Array.from(values);
        const decoded = decodePcm16Base64(encode(samples), 1 << 20);
        expect(decoded).toEqual({ ok: true, samples });
      }),
    );
  });

  test("given known bytes, when decoded, then the low byte comes first", () => {
    // 0x01 0x80 -> 0x8001 = -32767; 0xff 0x7f -> 32767
    const decoded = decodePcm16Base64(Buffer.from([0x01, 0x80, 0xff, 0x7f]).toString("base64"), 4);
    expect(decoded).toEqual({ ok: true, samples: Int16Array.from([-32767, 32767]) });
  });

  test("given an empty text, when decoded, then it is zero samples", () => {
    expect(decodePcm16Base64("", 10)).toEqual({ ok: true, samples: new Int16Array(0) });
  });

  test("given characters outside the alphabet (whitespace, URL-safe letters, controls, non-ASCII), when decoded, then refused", () => {
    for (const text of ["AAAA AAA=", "AAAA\nAAAA", " AAAA", "AA-_", "AA\u0000A", "AAé=", "AAA\u{1F600}", "<script>"]) {
      expect(reasonOf(text)).toMatch(/base64/);
    }
  });

  test("given bad padding, when decoded, then refused", () => {
    for (const text of ["AAA", "A===", "AA=A", "=AAA", "AAAAA", "AA==AAAA", "AAF=", "AB=="]) expect(reasonOf(text)).toMatch(/base64/);
  });

  test("given an odd number of bytes, when decoded, then refused as not 16-bit PCM", () => {
    expect(reasonOf(Buffer.from([1, 2, 3]).toString("base64"))).toBe("the audio is not 16-bit PCM: 3 bytes is an odd count");
  });

  test("given more bytes than allowed, when decoded, then refused with the sizes, before the text is scanned", () => {
    const tooLarge = "A".repeat(4 * 1000); // 3000 bytes
    expect(reasonOf(tooLarge, 2999)).toBe("the audio is too large: 3000 bytes in one event, at most 2999");
    // Garbage past the limit is reported as too large: its length alone decides.
    expect(reasonOf(`${"!".repeat(4 * 1000)}`, 100)).toMatch(/too large/);
    expect(decodePcm16Base64(tooLarge, 3000).ok).toBe(true);
  });

  test("given any text, when decoded, then it is either refused or exactly what a lenient decoder reads", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: "binary" })), (text) => {
        const decoded = decodePcm16Base64(text, 1 << 20);
        if (!decoded.ok) return;
        expect(Buffer.from(decoded.samples.buffer).toString("base64")).toBe(text);
      }),
    );
  });

  test("given 1 MB of audio, when decoded, then it decodes whole (speed is measured in bench/, not here)", () => {
    const samples = Int16Array.from({ length: 512 * 1024 }, (_, i) => (i * 7919) % 65536);
    const decoded = decodePcm16Base64(encode(samples), 1 << 20);
    expect(decoded.ok && decoded.samples.length).toBe(samples.length);
  });
});
