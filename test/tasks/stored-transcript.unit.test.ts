import { describe, expect, test } from "bun:test";
import { storedTranscript, storedTranscriptFrom } from "../../src/tasks/stored-transcript.ts";

describe("what the body thread hands back for a request's segments", () => {
  test("given nothing, the request carried its segments as usual: undefined", () => {
    expect(storedTranscriptFrom(undefined)).toBeUndefined();
  });

  test("given a stored transcript, it is taken as it is", () => {
    const stored = storedTranscript([{ id: 1, start: 0, end: 1, text: "a", speaker: null, tokens: null }]);
    expect(storedTranscriptFrom(stored)).toEqual(stored);
  });

  test("given anything else, it is our fault, never a task without its transcript: it throws", () => {
    for (const value of [null, 1, "x", {}, { bytes: "x", sha256: "y", segments: 1 }, { bytes: new Uint8Array(1), sha256: 1, segments: 1 }]) {
      expect(() => storedTranscriptFrom(value)).toThrow("the body thread handed back segments in a form the service does not know");
    }
  });
});
