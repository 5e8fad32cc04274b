import { describe, expect, test } from "bun:test";
import type { BlobStore } from "../../src/blobs/port.ts";
import { progressKey } from "../../src/transcription/chunk-results.ts";
import { parseProgress, ProgressReport, type RecognitionProgress } from "../../src/transcription/progress.ts";

/** A blob store that keeps what is put, each put taking `putMs`, failing while `failing` is set. */
function recordingBlobs(putMs = 5) {
  const puts: { key: string; value: RecognitionProgress }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const store = {
    failing: false,
    puts,
    mostInFlight: () => mostInFlight,
    async put(key: string, body: Uint8Array) {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await Bun.sleep(putMs);
      inFlight--;
      if (store.failing) throw new Error("the store is away");
      puts.push({ key, value: JSON.parse(new TextDecoder().decode(body)) as RecognitionProgress });
      return { size: body.length, contentType: "application/json" };
    },
  };
  return store;
}

const at = (stage: RecognitionProgress["stage"], chunksDone = 0): RecognitionProgress => ({
  stage,
  chunks: 10,
  chunksDone,
  chunksRunning: 1,
  msDone: chunksDone * 1000,
  msTotal: 10_000,
});

describe("a pipeline's progress report", () => {
  test("a new stage is written at once; progress within a stage at most once per interval, the latest winning; one write at a time", async () => {
    const blobs = recordingBlobs();
    const report = new ProgressReport(blobs as unknown as BlobStore, 7, 2, { minIntervalMs: 60 });
    report.report(at("preparing"));
    report.report(at("recognising", 0));
    for (let done = 1; done <= 5; done++) report.report(at("recognising", done));
    await Bun.sleep(150);
    report.report(at("summarising", 10));
    await Bun.sleep(30);
    await report.close();
    const written = blobs.puts.map((p) => `${p.value.stage} ${p.value.chunksDone}`);
    expect(written[0]).toBe("preparing 0");
    expect(written[1]).toBe("recognising 5"); // the stage change waited for the write in flight, then took the latest
    expect(written.at(-1)).toBe("summarising 10");
    expect(written.length).toBeLessThanOrEqual(4);
    expect(blobs.puts.every((p) => p.key === progressKey(7, 2) && p.key === "work/recognition/7-2/progress.json")).toBe(true);
    expect(blobs.mostInFlight()).toBe(1);
  });

  test("progress within a stage waits out the interval, then is written", async () => {
    const blobs = recordingBlobs(1);
    const report = new ProgressReport(blobs as unknown as BlobStore, 1, 1, { minIntervalMs: 40 });
    report.report(at("recognising", 1));
    await Bun.sleep(10);
    report.report(at("recognising", 2));
    report.report(at("recognising", 3));
    expect(blobs.puts.length).toBe(1);
    await Bun.sleep(80);
    expect(blobs.puts.map((p) => p.value.chunksDone)).toEqual([1, 3]);
    await report.close();
  });

  test("close waits for the write in flight and writes nothing after, so the attempt's files can be cleared", async () => {
    const blobs = recordingBlobs(30);
    const report = new ProgressReport(blobs as unknown as BlobStore, 1, 1, { minIntervalMs: 10 });
    report.report(at("recognising", 1));
    report.report(at("recognising", 2));
    await report.close();
    expect(blobs.puts.map((p) => p.value.chunksDone)).toEqual([1]);
    report.report(at("summarising", 10));
    await Bun.sleep(50);
    expect(blobs.puts.length).toBe(1);
  });

  test("a failed write is logged, never thrown, and the next report tries again", async () => {
    const blobs = recordingBlobs(1);
    const report = new ProgressReport(blobs as unknown as BlobStore, 1, 1, { minIntervalMs: 0 });
    blobs.failing = true;
    report.report(at("recognising", 1));
    await Bun.sleep(20);
    blobs.failing = false;
    report.report(at("recognising", 2));
    await Bun.sleep(20);
    await report.close();
    expect(blobs.puts.map((p) => p.value.chunksDone)).toEqual([2]);
  });
});

describe("reading a stored progress", () => {
  test("a well-formed progress reads back", () => {
    expect(parseProgress(JSON.stringify(at("recognising", 3)))).toEqual(at("recognising", 3));
  });

  test("anything else reads as none: cut short, another shape, hostile values", () => {
    for (const text of [
      "",
      '{"stage":"recognising","chunks":4',
      "null",
      "[]",
      '"recognising"',
      JSON.stringify({ ...at("recognising"), stage: "dancing" }),
      JSON.stringify({ ...at("recognising"), stage: "__proto__" }),
      JSON.stringify({ ...at("recognising"), chunks: -1 }),
      JSON.stringify({ ...at("recognising"), chunksDone: 1.5 }),
      JSON.stringify({ ...at("recognising"), msDone: "9" }),
      JSON.stringify({ ...at("recognising"), msTotal: 1e300 }),
      '{"__proto__":{"stage":"recognising"}}',
    ]) {
      expect(parseProgress(text)).toBeNull();
    }
  });
});
