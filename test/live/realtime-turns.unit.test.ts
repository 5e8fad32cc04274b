/** Where turns are cut (session-turns.ts) and how partial text firms up (session-deltas.ts), given/when/then. */
import { describe, expect, test } from "bun:test";
import { TurnCutter, type TurnStep, type VoiceEvent } from "../../src/live/session-turns.ts";
import { FirmingText } from "../../src/live/session-deltas.ts";

/** A detector that answers each push with the events scripted for it. */
const scripted = (...pushes: VoiceEvent[][]) => ({ push: () => pushes.shift() ?? [] });
const samples = (ms: number, from = 0) => Int16Array.from({ length: ms * 16 }, (_, i) => (from * 16 + i) % 30_000);
const audioMs = (steps: TurnStep[]) => steps.filter((step) => step.type === "audio").reduce((ms, step) => ms + step.samples.length / 16, 0);

describe("TurnCutter with a detector", () => {
  test("given speech detected at 250 ms (padding already taken off), then the turn's audio starts there, from kept audio", () => {
    const cutter = new TurnCutter(scripted([], [{ type: "speech_started", atMs: 250 }]), 300);
    expect(cutter.cut(samples(200))).toEqual([]);
    const steps = cutter.cut(samples(200, 200));
    expect(steps[0]).toEqual({ type: "started", atMs: 250, detected: true });
    expect(audioMs(steps)).toBe(150);
    // The first sample of the turn is the one at 250 ms.
    const audio = steps[1]!;
    expect(audio.type === "audio" && audio.samples[0]).toBe((250 * 16) % 30_000);
  });

  test("given speech stopped within a chunk, then only the audio before the stop is the turn's", () => {
    const cutter = new TurnCutter(scripted([{ type: "speech_started", atMs: 0 }], [{ type: "speech_stopped", atMs: 150 }]), 0);
    cutter.cut(samples(100));
    const steps = cutter.cut(samples(100, 100));
    expect(steps.map((step) => step.type)).toEqual(["audio", "stopped"]);
    expect(audioMs(steps)).toBe(50);
    expect(steps[1]).toEqual({ type: "stopped", atMs: 150, detected: true });
    expect(cutter.inTurn).toBe(false);
  });

  test("given a detector made later, then its times count from where it began", () => {
    const cutter = new TurnCutter(null, 0);
    cutter.cut(samples(100));
    cutter.end();
    cutter.detectWith(scripted([{ type: "speech_started", atMs: 20 }]), 0);
    expect(cutter.cut(samples(100, 100))[0]).toEqual({ type: "started", atMs: 120, detected: true });
  });
});

describe("TurnCutter without a detector", () => {
  test("the first audio starts a turn, end() stops it where the audio ends, clear() drops it", () => {
    const cutter = new TurnCutter(null, 0);
    expect(cutter.cut(samples(100)).map((step) => step.type)).toEqual(["started", "audio"]);
    expect(cutter.end()).toEqual([{ type: "stopped", atMs: 100, detected: false }]);
    expect(cutter.end()).toEqual([]);
    cutter.cut(samples(100));
    cutter.clear();
    expect(cutter.inTurn).toBe(false);
    expect(cutter.end()).toEqual([]);
  });
});

describe("FirmingText", () => {
  test("a word is sent once two hypotheses agree on it and on all before it; deltas only append", () => {
    const firming = new FirmingText();
    expect(firming.next("he")).toBe("");
    expect(firming.next("he")).toBe("he");
    expect(firming.next("he hoped")).toBe("");
    expect(firming.next("he hoped")).toBe(" hoped");
  });

  test("a word is sent as soon as the decoder has begun another after it, from one hypothesis", () => {
    const firming = new FirmingText();
    expect(firming.next("he hoped")).toBe("he");
    expect(firming.next("he hoped their")).toBe(" hoped");
    expect(firming.next("he hoped there")).toBe("");
    expect(firming.next("he hoped there would be")).toBe(" there would");
  });

  test("the last word of a hypothesis waits while it keeps changing", () => {
    const firming = new FirmingText();
    expect(firming.next("a")).toBe("");
    expect(firming.next("the")).toBe("");
    expect(firming.next("then")).toBe("");
    expect(firming.next("then")).toBe("then");
  });

  test("a revision of words already sent holds further deltas until a hypothesis agrees with them again", () => {
    const firming = new FirmingText();
    expect(firming.next("a b c")).toBe("a b");
    expect(firming.next("a b c d")).toBe(" c");
    expect(firming.next("a x c d e")).toBe("");
    expect(firming.next("a x c d e")).toBe("");
    expect(firming.next("a b c d e")).toBe(" d");
    expect(firming.next("a b c d e f")).toBe(" e");
  });

  test("after reset, a new turn firms from nothing", () => {
    const firming = new FirmingText();
    firming.next("a b c");
    firming.reset();
    expect(firming.next("x")).toBe("");
    expect(firming.next("x y")).toBe("x");
  });
});
