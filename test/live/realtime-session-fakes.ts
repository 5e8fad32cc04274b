/** A live session driven without a socket, an engine or a store: fakes of its ports, and a clock the test moves. */
import type { EndedSession, SessionAudio } from "../../src/live/live-session-types.ts";
import type { TurnRecognizer, TurnResult } from "../../src/live/streaming-engine.ts";
import type { ServerEvent } from "../../src/live/server-events.ts";
import type { SessionPorts } from "../../src/live/session-ports.ts";
import type { VoiceDetector, VoiceEvent } from "../../src/live/session-turns.ts";
import { LiveSession } from "../../src/live/session-runtime.ts";

/** One word per 100 ms of audio pushed to the turn: "w1 w2 ...", each timed where its audio was. */
export class FakeRecognizer implements TurnRecognizer {
  pushedSamples = 0;
  turns = 0;
  closed = false;
  partialsAtOnce = 0;
  mostPartialsAtOnce = 0;
  /** What backlogMs() answers: audio the test says is undecoded. */
  backlog = 0;
  /** While set, finish() waits until the test calls releaseFinals(). */
  holdFinals = false;
  private held: (() => void)[] = [];
  backlogMs(): number {
    return this.backlog;
  }
  releaseFinals(): void {
    this.holdFinals = false;
    for (const release of this.held.splice(0)) release();
  }
  push(samples: Int16Array): void {
    this.pushedSamples += samples.length;
  }
  private words(): string[] {
    return Array.from({ length: Math.floor(this.pushedSamples / 1600) }, (_, i) => `w${i + 1}`);
  }
  async partial(): Promise<string> {
    this.partialsAtOnce++;
    this.mostPartialsAtOnce = Math.max(this.mostPartialsAtOnce, this.partialsAtOnce);
    await Bun.sleep(1);
    this.partialsAtOnce--;
    return this.words().join(" ");
  }
  async finish(): Promise<TurnResult> {
    const words = this.words().map((text, i) => ({ text, start: i * 100, end: i * 100 + 90, confidence: 0.9 }));
    this.pushedSamples = 0;
    this.turns++;
    if (this.holdFinals) await new Promise<void>((resolve) => this.held.push(resolve));
    return { text: words.map((word) => word.text).join(" "), words, punctuated: false };
  }
  clear(): void {
    this.pushedSamples = 0;
  }
  close(): void {
    this.closed = true;
  }
}

/** Speech wherever a chunk's first sample is loud (over 1000), silence elsewhere: events at chunk edges. */
export class FakeDetector implements VoiceDetector {
  private speaking = false;
  private atMs = 0;
  push(samples: Int16Array): VoiceEvent[] {
    const loud = (samples[0] ?? 0) > 1000;
    const events: VoiceEvent[] = [];
    if (loud && !this.speaking) events.push({ type: "speech_started", atMs: this.atMs });
    if (!loud && this.speaking) events.push({ type: "speech_stopped", atMs: this.atMs });
    this.speaking = loud;
    this.atMs += samples.length / 16;
    return events;
  }
}

export class FakeAudio implements SessionAudio {
  samples = 0;
  discarded = false;
  /** Thrown by append and by close (a full disk), when set. */
  failure: Error | null = null;
  closeFailure: Error | null = null;
  append(samples: Int16Array): void {
    if (this.failure !== null) throw this.failure;
    this.samples += samples.length;
  }
  get durationMs(): number {
    return this.samples / 16;
  }
  async close(): Promise<string> {
    if (this.closeFailure !== null) throw this.closeFailure;
    return "/tmp/fake.wav";
  }
  async discard(): Promise<void> {
    this.discarded = true;
  }
}

export type Harness = {
  session: LiveSession;
  sent: ServerEvent[];
  closed: { code: number; reason: string } | null;
  kept: EndedSession[];
  released: number;
  recognizer: FakeRecognizer;
  audio: FakeAudio;
  clock: { now: number };
  /** How often the session read the clock (its timer reads it on every tick). */
  clockReads: { count: number };
  of<T extends ServerEvent["type"]>(type: T): Extract<ServerEvent, { type: T }>[];
  /** Sends an event as a client would. */
  send(event: unknown): void;
  /** Appends 16 kHz samples (the session is set to 16 kHz first). */
  append(samples: Int16Array): void;
  settle(ms?: number): Promise<void>;
};

/** Every session started here, so that a test file can end those its tests left open (their timers). */
const started: LiveSession[] = [];
export const endSessions = () => Promise.all(started.splice(0).map((session) => session.clientGone()));

export async function startSession(
  options: {
    remainingSeconds?: number;
    limits?: Partial<SessionPorts["limits"]>;
    turnDetection?: null;
    recognizerFails?: boolean;
    /** Called as soon as the session is made, before its recording opened. */
    made?: (session: LiveSession) => unknown;
  } = {},
): Promise<Harness> {
  const clock = { now: 0 };
  const clockReads = { count: 0 };
  const recognizer = new FakeRecognizer();
  const audio = new FakeAudio();
  const harness = { sent: [] as ServerEvent[], closed: null as Harness["closed"], kept: [] as EndedSession[], released: 0 };
  const ports: SessionPorts = {
    send: (event) => harness.sent.push(event),
    close: (code, reason) => {
      harness.closed = { code, reason };
    },
    openRecognizer: async () => {
      if (options.recognizerFails) throw new Error("no decoder thread");
      return recognizer;
    },
    detector: () => new FakeDetector(),
    resampler: () => ({ push: (samples) => samples }),
    openAudio: async () => audio,
    keep: async (ended) => {
      harness.kept.push(ended);
      return { taskId: 7 };
    },
    remainingSeconds: async () => options.remainingSeconds ?? 3600,
    release: async () => {
      harness.released++;
    },
    offer: { defaultEngine: "sphinx", engines: ["sphinx"], languagesOf: () => ["en"] },
    limits: { maxSessionMs: 600_000, idleTimeoutMs: 60_000, burstMs: 10_000, partialEveryMs: 5, balanceEveryMs: 60_000, ...options.limits },
    now: () => {
      clockReads.count++;
      return clock.now;
    },
    observe: { audioReceived() {}, partialLatency() {}, ended() {} },
  };
  const session = new LiveSession("sess_test", 1, ports, options.remainingSeconds ?? 3600);
  started.push(session);
  options.made?.(session);
  await session.whenStarted();
  const send = (event: unknown) => session.receive(JSON.stringify(event));
  send({
    type: "session.update",
    session: {
      type: "transcription",
      audio: { input: { format: { type: "audio/pcm", rate: 16000 }, ...(options.turnDetection === null && { turn_detection: null }) } },
    },
  });
  return Object.assign(harness, {
    session,
    recognizer,
    audio,
    clock,
    clockReads,
    of: <T extends ServerEvent["type"]>(type: T) => harness.sent.filter((event): event is Extract<ServerEvent, { type: T }> => event.type === type),
    send,
    append: (samples: Int16Array) =>
      send({ type: "input_audio_buffer.append", audio: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString("base64") }),
    settle: (ms = 30) => Bun.sleep(ms),
  });
}

/** `ms` of 16 kHz audio, loud (speech to the fake detector) or silent. */
export const audioOf = (ms: number, loud: boolean) => new Int16Array(ms * 16).fill(loud ? 5000 : 0);
