/** Reading a client's frame into an event (protocol-read.ts): each refusal says what is wrong, in OpenAI's terms. */
import { describe, expect, test } from "bun:test";
import { maxEventBytes, readClientEvent } from "../../src/live/protocol-read.ts";

const problemOf = (frame: string | Uint8Array) => {
  const read = readClientEvent(frame);
  if (read.ok) throw new Error("read");
  return read.problem;
};

describe("accepted", () => {
  test("each event of a transcription session", () => {
    for (const event of [
      { type: "session.update", session: { type: "transcription", audio: { input: { turn_detection: null, noise_reduction: null } } } },
      { type: "input_audio_buffer.append", audio: "AAAA", event_id: "x" },
      { type: "input_audio_buffer.commit" },
      { type: "input_audio_buffer.clear" },
      { type: "session.close" },
    ]) {
      expect(readClientEvent(JSON.stringify(event))).toEqual({ ok: true, event: event as never });
    }
  });
});

describe("refused", () => {
  test("unknown types name the accepted ones", () => {
    const problem = problemOf(JSON.stringify({ type: "conversation.item.create", event_id: "q" }));
    expect(problem).toMatchObject({ code: "invalid_value", param: "type", eventId: "q" });
    expect(problem.message).toContain("input_audio_buffer.append");
  });

  test("semantic_vad and other turn detections", () => {
    const problem = problemOf(
      JSON.stringify({ type: "session.update", session: { type: "transcription", audio: { input: { turn_detection: { type: "semantic_vad" } } } } }),
    );
    expect(problem.param).toStartWith("session.audio.input.turn_detection");
  });

  test("a frame over the bound is refused unread, whatever it holds", () => {
    expect(problemOf("x".repeat(maxEventBytes + 1)).code).toBe("event_too_large");
  });

  test("wide objects and many names are refused before parsing", () => {
    const wide = `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":1`).join(",")}}`;
    expect(problemOf(wide).code).toBe("invalid_event");
  });

  test("an escaped __proto__ is found too", () => {
    expect(problemOf('{"type":"session.close","\\u005f_proto__":{}}').code).toBe("unknown_parameter");
  });

  test("a string in place of an object", () => {
    expect(problemOf(JSON.stringify({ type: "session.update", session: "transcription" }))).toMatchObject({ code: "invalid_value", param: "session" });
  });
});
