/**
 * Where turns begin and end in a session's audio, decided without I/O: with server_vad the voice-activity detector's
 * events cut them (a turn's audio starts at the detected start, already moved back by the prefix padding, so the audio
 * before it is kept that long); without, the client's commit does. Every step says which samples belong to the open
 * turn, in order, so the session pushes exactly those to the recognizer. A turn the detector would end while the
 * session cannot take one more (`mayStop`) is held open instead: its audio goes on into the next speech.
 */
import { liveSampleRate } from "./streaming-engine.ts";

/** The detector's events (audio/voice-activity.ts): ms from its first sample. */
export type VoiceEvent = { type: "speech_started"; atMs: number } | { type: "speech_stopped"; atMs: number };
export interface VoiceDetector {
  push(samples: Int16Array): VoiceEvent[];
}

export type TurnStep =
  /** `detected`: by voice activity (the client hears speech_started), not by the first audio after a commit. */
  | { type: "started"; atMs: number; detected: boolean }
  | { type: "audio"; samples: Int16Array }
  | { type: "stopped"; atMs: number; detected: boolean }
  /** The detector heard speech stop, and `mayStop` said no: the turn goes on. */
  | { type: "held"; atMs: number };

const samplesPerMs = liveSampleRate / 1000;
/** Audio kept beyond the padding: the detector decides a few frames after speech began. */
const keptBeyondPaddingMs = 1000;
/**
 * Chunks shorter than this are joined to the one before as they come: the audio kept is then a few dozen arrays,
 * however small the appends (a client sending a sample at a time would otherwise have 20,000 arrays held).
 */
const pieceSamples = 1600;

const stopsIn = (steps: TurnStep[]) => steps.filter((step) => step.type === "stopped").length;

export class TurnCutter {
  /** Recent audio, oldest first, and the sample index of its first sample. */
  private recent: Int16Array[] = [];
  private recentFrom = 0;
  private total = 0;
  /** Samples before this index have been routed (pushed to the turn, or passed while no turn was open). */
  private routed = 0;
  private open = false;
  /** The sample index where the open turn began. */
  private turnFrom = 0;
  /** The detector heard the open turn's speech stop while it could not end: it ends once it may, unless speech resumes. */
  private held = false;
  /** Where the detector's first sample is in the session's audio: its events count from there. */
  private detectorFromMs = 0;

  constructor(
    /** A detector fed from the session's first sample (detectWith for one made later). */
    private detector: VoiceDetector | null,
    private paddingMs = 0,
    /** Whether the detector may end the open turn now, given the turns it already ended in this chunk. */
    private readonly mayStop: (stoppedInChunk: number) => boolean = () => true,
  ) {}

  get inTurn(): boolean {
    return this.open;
  }

  /** Milliseconds of audio cut so far. */
  get audioMs(): number {
    return this.total / samplesPerMs;
  }

  /** How many arrays of recent audio are held (a few dozen at most, whatever the appends' sizes). */
  get heldPieces(): number {
    return this.recent.length;
  }

  /** Milliseconds of audio in the open turn (0 when none is open). */
  get turnAudioMs(): number {
    return this.open ? (this.total - this.turnFrom) / samplesPerMs : 0;
  }

  /** Turn detection changed (session.update): a turn in progress goes on until the new detector, or a commit, ends it. */
  detectWith(detector: VoiceDetector | null, paddingMs: number): void {
    this.detector = detector;
    this.paddingMs = paddingMs;
    this.detectorFromMs = this.audioMs;
  }

  /** The steps one chunk of 16 kHz audio gives. */
  cut(chunk: Int16Array): TurnStep[] {
    if (chunk.length === 0) return [];
    const from = this.total;
    this.keep(chunk);
    this.total += chunk.length;
    const steps: TurnStep[] = [];
    if (this.detector === null) {
      if (!this.open) {
        this.open = true;
        this.routed = from;
        this.turnFrom = from;
        steps.push({ type: "started", atMs: from / samplesPerMs, detected: false });
      }
    } else {
      for (const event of this.detector.push(chunk)) this.follow(event, steps);
      if (this.held && this.mayStop(stopsIn(steps))) this.stop(this.total, steps);
    }
    if (this.open) this.route(this.total, steps);
    else this.routed = this.total;
    this.trim();
    return steps;
  }

  /** Ends the open turn where the audio so far ends (a commit, the session's end); nothing when none is open. */
  end(): TurnStep[] {
    if (!this.open) return [];
    this.open = false;
    this.held = false;
    return [{ type: "stopped", atMs: this.audioMs, detected: false }];
  }

  /** Drops the open turn (input_audio_buffer.clear): its audio is no turn's, and the next speech starts a new one. */
  clear(): void {
    this.open = false;
    this.held = false;
    this.routed = this.total;
  }

  private follow(event: VoiceEvent, steps: TurnStep[]): void {
    const at = Math.min(this.total, Math.max(this.recentFrom, Math.round((this.detectorFromMs + event.atMs) * samplesPerMs)));
    if (event.type === "speech_started") this.held = false;
    if (event.type === "speech_started" && !this.open) {
      this.open = true;
      this.routed = at;
      this.turnFrom = at;
      steps.push({ type: "started", atMs: at / samplesPerMs, detected: true });
    } else if (event.type === "speech_stopped" && this.open) {
      if (this.mayStop(stopsIn(steps))) this.stop(at, steps);
      else {
        this.held = true;
        steps.push({ type: "held", atMs: at / samplesPerMs });
      }
    }
  }

  /** Ends the open turn where the detector heard speech stop (or, for a held turn, where the audio so far ends). */
  private stop(at: number, steps: TurnStep[]): void {
    this.route(Math.max(at, this.routed), steps);
    this.open = false;
    this.held = false;
    steps.push({ type: "stopped", atMs: this.routed / samplesPerMs, detected: true });
  }

  /** Pushes the samples from `routed` to `to` as one audio step. */
  private route(to: number, steps: TurnStep[]): void {
    if (to <= this.routed) return;
    const samples = new Int16Array(to - this.routed);
    let at = this.recentFrom;
    for (const piece of this.recent) {
      const start = Math.max(this.routed, at);
      const end = Math.min(to, at + piece.length);
      if (end > start) samples.set(piece.subarray(start - at, end - at), start - this.routed);
      at += piece.length;
    }
    this.routed = to;
    steps.push({ type: "audio", samples });
  }

  /** Adds a chunk to the recent audio, joined to the last piece while that one is short. */
  private keep(chunk: Int16Array): void {
    const last = this.recent.at(-1);
    if (last === undefined || last.length >= pieceSamples) {
      this.recent.push(chunk);
      return;
    }
    const joined = new Int16Array(last.length + chunk.length);
    joined.set(last);
    joined.set(chunk, last.length);
    this.recent[this.recent.length - 1] = joined;
  }

  /** Keeps what a detected start may still reach back to: the padding and a second. */
  private trim(): void {
    const keepFrom = this.total - (this.paddingMs + keptBeyondPaddingMs) * samplesPerMs;
    while (this.recent.length > 1 && this.recentFrom + this.recent[0]!.length <= keepFrom) {
      this.recentFrom += this.recent.shift()!.length;
    }
  }
}
