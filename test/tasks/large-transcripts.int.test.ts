import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";
import { TranscriptIntegrityError, TranscriptStore, largeTranscriptBytes, type TranscriptRef } from "../../src/tasks/transcripts.ts";
import { transcriptsReadOffThread } from "../../src/tasks/large-transcripts.ts";
import type { Segment } from "../../src/tasks/segments.ts";

// A transcript over 1 MiB is hashed and parsed on a thread (src/tasks/large-transcripts.ts) and its segments come back
// a slice at a time; what a reader gets is what a main-thread read gave: the segments, or the same integrity errors.

const root = mkdtempSync(join(tmpdir(), "large-transcripts-"));
const blobs = new FileBlobStore({ root, publicUrl: "http://localhost", secret: "test" });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const segments = (count: number): Segment[] =>
  Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    start: i * 1000,
    end: i * 1000 + 900,
    text: `segment ${i} says ünïcödé words, "quoted"`,
    speaker: i % 3 ? "Ann" : null,
    tokens: i % 2 ? ["segment", String(i)] : null,
  }));

describe("large transcripts are read off the main thread", () => {
  test("every segment comes back as it was saved, in order, from a store with nothing cached", async () => {
    const saved = segments(25_000);
    const ref = await new TranscriptStore(blobs).save(1, saved);
    expect(ref.bytes).toBeGreaterThan(largeTranscriptBytes);
    const before = transcriptsReadOffThread();
    expect(await new TranscriptStore(blobs).load(ref)).toEqual(saved);
    expect(transcriptsReadOffThread()).toBe(before + 1);
  });

  test("two read at once each get their own", async () => {
    const [a, b] = [segments(21_000), segments(23_000).map((s) => ({ ...s, text: `${s.text} (b)` }))];
    const store = new TranscriptStore(blobs);
    const [refA, refB] = [await store.save(2, a), await store.save(3, b)];
    const reader = new TranscriptStore(blobs);
    const [readA, readB] = await Promise.all([reader.load(refA), reader.load(refB)]);
    expect(readA).toEqual(a);
    expect(readB).toEqual(b);
  });

  test("bytes that do not hash to the name, or a blob that is gone, are the integrity errors a small one gets", async () => {
    const ref = await new TranscriptStore(blobs).save(4, segments(25_000));
    const stored = new Uint8Array(await new Response((await blobs.get(ref.key))!.body).arrayBuffer());
    stored[stored.byteLength - 10] = "x".charCodeAt(0) === stored[stored.byteLength - 10] ? "y".charCodeAt(0) : "x".charCodeAt(0);
    await blobs.put(ref.key, stored, { contentType: "application/json" });
    const damaged = await new TranscriptStore(blobs).load(ref).catch((error: unknown) => error);
    expect(damaged).toBeInstanceOf(TranscriptIntegrityError);
    expect((damaged as TranscriptIntegrityError).missing).toBe(false);

    const gone: TranscriptRef = { ...ref, key: "transcripts/task-4/gone.json" };
    const missing = await new TranscriptStore(blobs).load(gone).catch((error: unknown) => error);
    expect((missing as TranscriptIntegrityError).missing).toBe(true);
  });
});

describe("one read for readers at once", () => {
  test("two loads of the same large transcript at the same moment share one read", async () => {
    const saved = segments(22_000);
    const ref = await new TranscriptStore(blobs).save(5, saved);
    const store = new TranscriptStore(blobs);
    const before = transcriptsReadOffThread();
    const [a, b] = await Promise.all([store.load(ref), store.load(ref)]);
    expect(a).toBe(b);
    expect(a).toEqual(saved);
    expect(transcriptsReadOffThread()).toBe(before + 1);
  });
});

describe("what a large read leaves cached", () => {
  test("a transcript over a quarter of the cache (8 MiB) is not kept; one of 1-8 MiB is, counted at its size", async () => {
    const store = new TranscriptStore(blobs);
    const small = await store.save(6, segments(25_000));
    const big = await store.save(7, segments(150_000));
    expect(big.bytes).toBeGreaterThan(8 * 1024 * 1024);
    const reader = new TranscriptStore(blobs);
    const before = transcriptsReadOffThread();
    await reader.load(big);
    await reader.load(big);
    expect(transcriptsReadOffThread()).toBe(before + 2); // read again: not cached
    await reader.load(small);
    await reader.load(small);
    expect(transcriptsReadOffThread()).toBe(before + 3); // cached after its first read
    const cached: unknown = Reflect.get(reader, "cachedBytes");
    expect(cached).toBe(small.bytes);
  });
});
