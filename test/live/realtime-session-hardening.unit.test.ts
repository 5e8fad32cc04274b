/**
 * What a client cannot make a live session do, given/when/then with the session's fakes: keep it open with appends of
 * no audio, flood it with valid events, start a final pass per sliver of a turn or pile up turns the recognizer has not
 * finished, push audio the recognizer is far behind on; and how it ends when it began ending before its recording
 * opened, or when its disk is full.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { audioOf, endSessions, startSession } from "./realtime-session-fakes.ts";
import { TurnCutter } from "../../src/live/session-turns.ts";
import { defaultSessionConfig, updatedConfig } from "../../src/live/session-config.ts";
import type { RecognitionOffer } from "../../src/tasks/recognition-choice.ts";
import { SessionEnding } from "../../src/live/session-end.ts";
import type { SessionPorts } from "../../src/live/session-ports.ts";
import { FakeAudio } from "./realtime-session-fakes.ts";

afterEach(() => endSessions());

const codes = (given: Awaited<ReturnType<typeof startSession>>) => given.of("error").map((event) => event.error.code);

describe("appends of no audio", () => {
  test('given an append with audio "", then invalid_audio saying it holds no audio, and nothing recorded', async () => {
    const given = await startSession();
    given.send({ type: "input_audio_buffer.append", audio: "", event_id: "e1" });
    expect(given.of("error")[0]!.error).toMatchObject({ code: "invalid_audio", event_id: "e1" });
    expect(given.of("error")[0]!.error.message).toContain("no audio");
    expect(given.audio.samples).toBe(0);
  });

  test("given a sample every 80 ms after the first audio, then the session still goes idle: a trickle is not audio", async () => {
    const given = await startSession({ limits: { idleTimeoutMs: 1000 } });
    given.append(audioOf(100, false));
    for (let i = 0; i < 30; i++) {
      given.clock.now += 80;
      given.append(new Int16Array(1));
    }
    await given.settle();
    expect(codes(given)).toEqual(["idle_timeout"]);
    expect(given.kept[0]!.end).toBe("idle");
  });

  test("given audio that keeps coming, when the session has been open LIVE_SESSION_MAX_SECONDS, then it ends as at the maximum length", async () => {
    const given = await startSession({ limits: { maxSessionMs: 10_000, idleTimeoutMs: 5000 } });
    for (let second = 0; second <= 10; second++) {
      given.clock.now = second * 1000;
      given.append(audioOf(100, false));
    }
    await given.settle();
    expect(codes(given)).toEqual(["session_max_length"]);
    expect(given.kept[0]!.end).toBe("max_length");
    expect(given.closed?.code).toBe(1000);
  });

  test("given 20,000 one-sample chunks, then the turn cutter holds a few arrays; an empty chunk starts no turn", () => {
    const cutter = new TurnCutter(null, 0);
    expect(cutter.cut(new Int16Array(0))).toEqual([]);
    expect(cutter.inTurn).toBe(false);
    for (let i = 0; i < 20_000; i++) cutter.cut(new Int16Array(1));
    expect(cutter.heldPieces).toBeLessThanOrEqual(20);
    expect(cutter.audioMs).toBe(1250);
  });
});

describe("a flood of valid events", () => {
  test("given 250 clears at once, then 200 are answered, then too_many_events, 1008, and the audio is kept", async () => {
    const given = await startSession();
    given.append(audioOf(200, false));
    for (let i = 0; i < 250; i++) given.send({ type: "input_audio_buffer.clear" });
    await given.settle();
    expect(given.of("input_audio_buffer.cleared").length).toBeLessThanOrEqual(200);
    expect(codes(given)).toEqual(["too_many_events"]);
    expect(given.closed?.code).toBe(1008);
    expect(given.kept).toHaveLength(1);
  });

  test("given 100 frames a second for 5 s, then the session goes on", async () => {
    const given = await startSession();
    for (let i = 0; i < 500; i++) {
      given.clock.now = i * 10;
      given.append(audioOf(10, false));
    }
    await given.settle();
    expect(codes(given)).toEqual([]);
    expect(given.closed).toBeNull();
  });

  test("given audio_too_fast answers that spent their budget, then a bad event is still answered: the budgets are apart", async () => {
    const given = await startSession({ limits: { burstMs: 0 } });
    for (let i = 0; i < 80; i++) given.append(audioOf(100, false));
    given.session.receive("not json");
    await given.settle();
    expect(codes(given).filter((code) => code === "audio_too_fast")).toHaveLength(50);
    expect(codes(given).at(-1)).toBe("invalid_json");
    expect(given.closed).toBeNull();
  });

  test("given the same prompt again, then its vocabulary is not derived again", () => {
    const offer: RecognitionOffer = { defaultEngine: "sphinx", engines: ["sphinx"], languagesOf: () => ["en"] };
    const update = {
      type: "session.update" as const,
      session: { type: "transcription" as const, audio: { input: { transcription: { prompt: "Zorbalind" } } } },
    };
    const first = updatedConfig(defaultSessionConfig, update, offer, false);
    if (!first.ok) throw new Error(first.problem.message);
    const again = updatedConfig(first.config, update, offer, false);
    expect(again.ok && again.config.vocabulary).toBe(first.config.vocabulary);
  });
});

describe("turns", () => {
  test("given under 100 ms in the turn, then a commit is input_audio_buffer_commit_empty and the turn goes on", async () => {
    const given = await startSession({ turnDetection: null });
    given.append(audioOf(50, true));
    given.send({ type: "input_audio_buffer.commit", event_id: "c1" });
    expect(given.of("error")[0]!.error).toMatchObject({ code: "input_audio_buffer_commit_empty", event_id: "c1" });
    expect(given.of("error")[0]!.error.message).toContain("under 100 ms of audio");
    given.append(audioOf(60, true));
    given.send({ type: "input_audio_buffer.commit" });
    await given.settle();
    expect(given.of("input_audio_buffer.committed")).toHaveLength(1);
    expect(given.of("conversation.item.input_audio_transcription.completed")[0]!.usage.seconds).toBe(0.11);
  });

  test("given 3 turns awaiting their final text, then a commit is turn_backlog and its audio joins the next turn", async () => {
    const given = await startSession({ turnDetection: null });
    given.recognizer.holdFinals = true;
    for (let i = 0; i < 4; i++) {
      given.append(audioOf(200, true));
      given.send({ type: "input_audio_buffer.commit" });
    }
    await given.settle();
    expect(given.of("input_audio_buffer.committed")).toHaveLength(3);
    expect(codes(given)).toEqual(["turn_backlog"]);
    given.recognizer.releaseFinals();
    await given.settle(5);
    given.append(audioOf(200, true));
    given.send({ type: "input_audio_buffer.commit" });
    await given.settle();
    const completed = given.of("conversation.item.input_audio_transcription.completed");
    expect(completed).toHaveLength(4);
    expect(completed[3]!.transcript.split(" ")).toHaveLength(4);
  });

  test("given 3 turns awaiting their final text, then server_vad holds the 4th open (turn_backlog) and ends it once there is room", async () => {
    const given = await startSession();
    given.recognizer.holdFinals = true;
    for (let i = 0; i < 4; i++) {
      given.append(audioOf(200, true));
      given.append(audioOf(100, false));
    }
    await given.settle();
    expect(given.of("input_audio_buffer.committed")).toHaveLength(3);
    expect(codes(given)).toEqual(["turn_backlog"]);
    given.recognizer.releaseFinals();
    await given.settle();
    given.append(audioOf(100, false));
    await given.settle();
    expect(given.of("input_audio_buffer.committed")).toHaveLength(4);
    expect(given.of("conversation.item.input_audio_transcription.completed")).toHaveLength(4);
  });

  test("given a recognizer more than 10 s behind, then appends are refused with audio_too_fast until it catches up", async () => {
    const given = await startSession();
    given.append(audioOf(100, false));
    await given.settle(5);
    given.recognizer.backlog = 12_000;
    given.append(audioOf(100, false));
    expect(given.of("error")[0]!.error).toMatchObject({ code: "audio_too_fast" });
    expect(given.of("error")[0]!.error.message).toContain("recognizer is behind");
    expect(given.audio.samples).toBe(100 * 16);
    given.recognizer.backlog = 0;
    given.append(audioOf(100, false));
    expect(given.audio.samples).toBe(200 * 16);
  });
});

describe("ends that go wrong", () => {
  test("given the client gone before the recording opened, then the recording is discarded and no timer runs", async () => {
    const given = await startSession({ made: (session) => session.clientGone() });
    await given.settle(5);
    expect(given.audio.discarded).toBe(true);
    expect(given.of("session.created")).toHaveLength(0);
    expect(given.released).toBe(1);
    const reads = given.clockReads.count;
    await given.settle(30);
    expect(given.clockReads.count).toBe(reads);
  });

  test("given a full disk, when audio is appended, then the session ends with transcription_unavailable and 1011", async () => {
    const given = await startSession();
    given.append(audioOf(100, false));
    given.audio.failure = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    given.append(audioOf(100, false));
    await given.settle();
    expect(given.of("error")[0]!.error).toMatchObject({ type: "server_error", code: "transcription_unavailable" });
    expect(given.closed?.code).toBe(1011);
    expect(given.released).toBe(1);
  });

  test("given a recording that cannot be closed, then it is still discarded and the recognizer closed", async () => {
    const given = await startSession();
    given.append(audioOf(300, true));
    given.audio.closeFailure = new Error("ENOSPC: no space left on device, write");
    given.send({ type: "session.close" });
    await given.settle();
    expect(codes(given)).toEqual(["task_not_kept"]);
    expect(given.audio.discarded).toBe(true);
    expect(given.recognizer.closed).toBe(true);
    expect(given.of("session.closed")[0]!.task_id).toBeNull();
  });

  test("given turns whose final text failed, then the ending still discards the recording, closes the recognizer and frees the place", async () => {
    const audio = new FakeAudio();
    audio.samples = 1600;
    const done = { recognizerClosed: false, released: false, sent: [] as string[] };
    const ports = {
      send: (event) => void done.sent.push(event.type === "error" ? event.error.code : event.type),
      close: () => {},
      release: async () => void (done.released = true),
      observe: { audioReceived() {}, partialLatency() {}, ended() {} },
    } as Pick<SessionPorts, "send" | "close" | "release" | "observe"> as SessionPorts;
    const ending = new SessionEnding({ reason: "closed", notice: null, closeCode: 1000, announce: true }, ports, {
      sessionId: "sess_test",
      userId: 1,
      finishTurn: () => {},
      pendingTurns: () => Promise.reject(new Error("a final that threw")),
      closeRecognition: async () => void (done.recognizerClosed = true),
      audio: () => audio,
      ended: () => {
        throw new Error("not reached");
      },
    });
    await ending.done;
    expect(audio.discarded).toBe(true);
    expect(done.recognizerClosed).toBe(true);
    expect(done.released).toBe(true);
    expect(done.sent).toEqual(["task_not_kept", "session.closed"]);
  });
});
