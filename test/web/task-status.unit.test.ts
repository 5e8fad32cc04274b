/** The task page's pure part of following a task (src/web/app/task-status/stage.ts): the stream's data read defensively, and in words. */
import { describe, expect, test } from "bun:test";
import { knownDuration, progressInWords, readFollowed, stageInWords } from "../../src/web/app/task-status/stage.ts";

describe("the status stream's data, as the task page reads it", () => {
  test("stage and progress are taken as sent", () => {
    expect(
      readFollowed({ status: "scribing", attempts: 2, failure_reason: null, stage: "recognising", progress: { percent: 40, chunks_done: 2, chunks: 5 } }),
    ).toEqual({ status: "scribing", attempts: 2, failure_reason: null, stage: "recognising", progress: { percent: 40, chunks_done: 2, chunks: 5 } });
    expect(readFollowed({ status: "failed", attempts: 1, failure_reason: "The file has no audio to transcribe.", stage: null, progress: null })).toEqual({
      status: "failed",
      attempts: 1,
      failure_reason: "The file has no audio to transcribe.",
      stage: null,
      progress: null,
    });
  });

  test("an older server's data (no stage, no progress) and nonsense read as nothing to say", () => {
    expect(readFollowed({ status: "pending", attempts: 1, failure_reason: null })).toEqual({
      status: "pending",
      attempts: 1,
      failure_reason: null,
      stage: null,
      progress: null,
    });
    for (const [stage, progress] of [
      ["dancing", { percent: 101, chunks_done: 1, chunks: 2 }],
      ["__proto__", { percent: -1, chunks_done: 1, chunks: 2 }],
      ["constructor", { percent: 10, chunks_done: 3, chunks: 2 }],
      [42, { percent: "10", chunks_done: 1, chunks: 2 }],
      [null, { percent: 1.5, chunks_done: 1, chunks: 2 }],
      ["toString", []],
      [{}, "40 %"],
    ] as const) {
      const read = readFollowed({ status: "scribing", attempts: -3, failure_reason: 7, stage, progress } as never);
      expect(read).toEqual({ status: "scribing", attempts: 1, failure_reason: null, stage: null, progress: null });
    }
  });
});

describe("where a task is, in words", () => {
  test("each stage has its sentence, and a line saying more", () => {
    expect(stageInWords("pending", "queued")).toEqual({ headline: "Waiting for a free slot", detail: "It starts as soon as a transcription slot is free." });
    expect(stageInWords("scribing", "queued").headline).toBe("Waiting for a free slot");
    expect(stageInWords("scribing", "queued").detail).toContain("next in line");
    expect(stageInWords("waiting", "fetching").headline).toBe("Fetching the media");
    expect(stageInWords("scribing", "preparing").headline).toBe("Preparing the audio");
    expect(stageInWords("scribing", "recognising").headline).toBe("Recognising speech");
    expect(stageInWords("scribing", "summarising").headline).toBe("Summarising");
  });

  test("without a stage, the status says what it can; an ended task says how it ended", () => {
    expect(stageInWords("pending", null).headline).toBe("Waiting for a free slot");
    expect(stageInWords("waiting", null).headline).toBe("Fetching the media");
    expect(stageInWords("scribing", null)).toEqual({ headline: "Transcribing", detail: null });
    expect(stageInWords("finished", "summarising")).toEqual({ headline: "The transcript is ready.", detail: null });
    expect(stageInWords("failed", null)).toEqual({ headline: "The transcription failed.", detail: null });
  });

  test("progress: the percentage and the parts", () => {
    expect(progressInWords({ percent: 40, chunks_done: 2, chunks: 5 })).toBe("40 % · 2 of 5 parts recognised");
    expect(progressInWords({ percent: 0, chunks_done: 0, chunks: 1 })).toBe("0 % · 0 of 1 part recognised");
  });

  test("a duration is said only once known: 0 is a task not yet measured, not one of no length", () => {
    expect(knownDuration(0)).toBeNull();
    expect(knownDuration(null)).toBeNull();
    expect(knownDuration(undefined)).toBeNull();
    expect(knownDuration(Number.NaN)).toBeNull();
    expect(knownDuration(-5)).toBeNull();
    expect(knownDuration(11)).toBe(11);
  });
});
