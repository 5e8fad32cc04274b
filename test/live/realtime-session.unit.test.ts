/**
 * A live session's decisions, given/when/then, with fakes for its socket, engine, recording and task (no port, no
 * engine): which events it sends for speech, commits and clears, and how limits end it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { audioOf, endSessions, startSession } from "./realtime-session-fakes.ts";

afterEach(() => endSessions());

describe("server_vad", () => {
  test("speech gives speech_started, deltas while it goes on, then speech_stopped, committed and completed with timed words", async () => {
    const given = await startSession();
    given.append(audioOf(200, false));
    for (let i = 0; i < 10; i++) {
      given.append(audioOf(100, true));
      await given.settle(15);
    }
    given.append(audioOf(100, false));
    await given.settle();
    const started = given.of("input_audio_buffer.speech_started");
    expect(started).toHaveLength(1);
    expect(started[0]!.audio_start_ms).toBe(200);
    const itemId = started[0]!.item_id;
    expect(given.of("input_audio_buffer.speech_stopped")[0]).toMatchObject({ audio_end_ms: 1200, item_id: itemId });
    expect(given.of("input_audio_buffer.committed")[0]).toMatchObject({ item_id: itemId, previous_item_id: null });
    const deltas = given.of("conversation.item.input_audio_transcription.delta");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.every((delta) => delta.item_id === itemId && delta.content_index === 0)).toBe(true);
    // Append-only: the deltas joined are a prefix of the final text.
    const completed = given.of("conversation.item.input_audio_transcription.completed")[0]!;
    expect(completed.transcript).toStartWith(deltas.map((delta) => delta.delta).join(""));
    expect(completed.transcript.split(" ")).toHaveLength(10);
    expect(completed.usage).toEqual({ type: "duration", seconds: 1 });
    // Word times in seconds from the session's start: the turn began at 0.2 s.
    expect(completed.words[0]).toEqual({ word: "w1", start: 0.2, end: 0.29, confidence: 0.9 });
    expect(given.recognizer.mostPartialsAtOnce).toBe(1);
  });

  test("a second turn names the first as its previous item", async () => {
    const given = await startSession();
    for (const loud of [true, false, true, false]) given.append(audioOf(300, loud));
    await given.settle();
    const committed = given.of("input_audio_buffer.committed");
    expect(committed).toHaveLength(2);
    expect(committed[1]!.previous_item_id).toBe(committed[0]!.item_id);
  });

  test("clear drops the open turn: no completed for it", async () => {
    const given = await startSession();
    given.append(audioOf(300, true));
    given.send({ type: "input_audio_buffer.clear" });
    await given.settle();
    expect(given.of("input_audio_buffer.cleared")).toHaveLength(1);
    expect(given.of("conversation.item.input_audio_transcription.completed")).toHaveLength(0);
  });
});

describe("turn_detection null: the client commits", () => {
  test("commit ends the turn with committed and completed, and no speech events", async () => {
    const given = await startSession({ turnDetection: null });
    given.append(audioOf(500, false));
    given.send({ type: "input_audio_buffer.commit", event_id: "c1" });
    await given.settle();
    expect(given.of("input_audio_buffer.speech_started")).toHaveLength(0);
    expect(given.of("input_audio_buffer.committed")).toHaveLength(1);
    expect(given.of("conversation.item.input_audio_transcription.completed")[0]!.transcript).toBe("w1 w2 w3 w4 w5");
  });

  test("a commit with nothing appended is an error that quotes the event", async () => {
    const given = await startSession({ turnDetection: null });
    given.send({ type: "input_audio_buffer.commit", event_id: "c1" });
    expect(given.of("error")[0]!.error).toMatchObject({ code: "input_audio_buffer_commit_empty", event_id: "c1" });
  });
});

describe("what cannot change once audio arrived", () => {
  test("the model: refused; turn detection: taken", async () => {
    const given = await startSession();
    given.append(audioOf(100, false));
    given.send({ type: "session.update", session: { type: "transcription", audio: { input: { transcription: { model: "whisper-1", language: "en" } } } } });
    expect(given.of("error")[0]!.error.code).toBe("session_already_started");
    given.send({ type: "session.update", session: { type: "transcription", audio: { input: { turn_detection: null } } } });
    expect(given.of("session.updated").at(-1)!.session.audio.input.turn_detection).toBeNull();
  });
});

describe("the end of a session", () => {
  test("session.close finishes the open turn, keeps the task, releases the places, then session.closed and close 1000", async () => {
    const given = await startSession();
    given.append(audioOf(400, true));
    given.send({ type: "session.close" });
    await given.settle();
    expect(given.of("conversation.item.input_audio_transcription.completed")).toHaveLength(1);
    expect(given.kept).toHaveLength(1);
    expect(given.kept[0]).toMatchObject({ sessionId: "sess_test", userId: 1, durationMs: 400, end: "closed" });
    expect(given.kept[0]!.turns).toHaveLength(1);
    expect(given.of("session.closed")[0]!.task_id).toBe(7);
    expect(given.released).toBe(1);
    expect(given.recognizer.closed).toBe(true);
    expect(given.closed).toEqual({ code: 1000, reason: "closed" });
    // Events after the end change nothing.
    given.append(audioOf(100, true));
    expect(given.audio.samples).toBe(400 * 16);
  });

  test("the maximum length ends it with an error that says so", async () => {
    const given = await startSession({ limits: { maxSessionMs: 1000 } });
    given.append(audioOf(600, false));
    given.append(audioOf(600, false));
    await given.settle();
    expect(given.of("error")[0]!.error.code).toBe("session_max_length");
    expect(given.kept[0]!.end).toBe("max_length");
    expect(given.closed?.code).toBe(1000);
  });

  test("a balance that runs out ends it with an error that says so, and 1008", async () => {
    const given = await startSession({ remainingSeconds: 1 });
    given.append(audioOf(600, false));
    expect(given.of("error")).toHaveLength(0);
    given.append(audioOf(600, false));
    await given.settle();
    expect(given.of("error")[0]!.error).toMatchObject({ code: "insufficient_balance" });
    expect(given.of("error")[0]!.error.message).toContain("balance ran out");
    expect(given.kept[0]!.end).toBe("balance");
    expect(given.closed?.code).toBe(1008);
  });

  test("no audio for the idle timeout ends it", async () => {
    const given = await startSession({ limits: { idleTimeoutMs: 5000 } });
    given.append(audioOf(100, false));
    given.clock.now = 6000;
    await given.settle();
    expect(given.of("error")[0]!.error.code).toBe("idle_timeout");
    expect(given.kept[0]!.end).toBe("idle");
  });

  test("a client that went away: nothing more is sent, the task is still kept", async () => {
    const given = await startSession();
    given.append(audioOf(100, false));
    await given.session.clientGone();
    expect(given.of("session.closed")).toHaveLength(0);
    expect(given.kept).toHaveLength(1);
    expect(given.released).toBe(1);
  });

  test("a recognizer that cannot start ends the session with a server_error and 1011; the recording is still kept", async () => {
    const given = await startSession({ recognizerFails: true });
    given.append(audioOf(300, true));
    await given.settle();
    expect(given.of("error")[0]!.error).toMatchObject({ type: "server_error", code: "transcription_unavailable" });
    expect(given.closed?.code).toBe(1011);
    expect(given.kept).toHaveLength(1);
    expect(given.of("session.closed")).toHaveLength(1);
  });

  test("a session that recorded nothing makes no task", async () => {
    const given = await startSession();
    given.send({ type: "session.close" });
    await given.settle();
    expect(given.kept).toHaveLength(0);
    expect(given.of("session.closed")[0]!.task_id).toBeNull();
  });
});

describe("pacing", () => {
  test("audio beyond twice real time and the burst is dropped with an error, not recorded", async () => {
    const given = await startSession({ limits: { burstMs: 1000 } });
    given.append(audioOf(1000, false));
    given.append(audioOf(1000, false));
    expect(given.of("error")[0]!.error.code).toBe("audio_too_fast");
    expect(given.audio.samples).toBe(1000 * 16);
    given.clock.now = 1000;
    given.append(audioOf(1000, false));
    expect(given.of("error")).toHaveLength(1);
  });
});
