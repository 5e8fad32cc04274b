/**
 * Server-side voice-activity detection for live sessions (the Realtime API's `server_vad`): it cuts the audio into turns.
 * Energy-based, against an adaptive noise floor: a 10 ms frame is speech when it is louder than the floor by a margin
 * that `threshold` sets, as OpenAI's does (higher: louder speech needed, fewer false starts in noise). Speech starts
 * once 150 ms of speech frames come close together, so a click or a short knock (under ~100 ms) starts nothing; it stops
 * after `silenceDurationMs` without a speech frame. Times are ms of audio from the first sample pushed (16 kHz).
 */
import { NoiseFloor } from "./noise-floor.ts";

export type VoiceEvent = { type: "speech_started"; atMs: number } | { type: "speech_stopped"; atMs: number };

export type VoiceActivityOptions = {
  /** 0..1, OpenAI's server_vad threshold (its default 0.5). */
  threshold: number;
  /** Audio before the detected start that the turn keeps (OpenAI's default 300 ms). */
  prefixPaddingMs: number;
  /** Silence that ends speech (OpenAI's default 500 ms). */
  silenceDurationMs: number;
};

const sampleRate = 16000;
const frameMs = 10;
const frameSamples = (sampleRate * frameMs) / 1000;
/** Speech frames needed before speech starts: longer than a click or knock, shorter than a syllable and its neighbour. */
const confirmMs = 150;
/** A gap longer than this between loud frames starts counting afresh (two clicks are not a word). */
const candidateGapMs = 100;
/** How far above the floor speech must be: from 3 dB (threshold 0) to 21 dB (threshold 1); 12 dB by default. */
const marginDb = (threshold: number) => 3 + 18 * threshold;

export class VoiceActivity {
  private readonly options: VoiceActivityOptions;
  private readonly floor = new NoiseFloor(frameMs);
  private readonly frame = new Int16Array(frameSamples);
  private frameFill = 0;
  private framesSeen = 0;
  private speaking = false;
  /** While not speaking: when the current run of loud frames began, its loud time, and its last loud frame's end (ms). */
  private candidate: { startMs: number; loudMs: number; lastLoudEndMs: number } | null = null;
  /** While speaking: the end of the last speech frame (ms). */
  private lastSpeechEndMs = 0;

  constructor(options: VoiceActivityOptions) {
    if (!(options.threshold >= 0 && options.threshold <= 1)) throw new RangeError("the threshold is between 0 and 1");
    if (!(options.prefixPaddingMs >= 0) || !(options.silenceDurationMs > 0)) throw new RangeError("the padding is 0 ms or more, the silence more than 0 ms");
    this.options = { ...options };
  }

  /** Feeds 16 kHz samples; returns what started or stopped within them, in order. */
  push(samples: Int16Array): VoiceEvent[] {
    const events: VoiceEvent[] = [];
    let offset = 0;
    while (offset < samples.length) {
      const taken = Math.min(frameSamples - this.frameFill, samples.length - offset);
      this.frame.set(samples.subarray(offset, offset + taken), this.frameFill);
      this.frameFill += taken;
      offset += taken;
      if (this.frameFill === frameSamples) {
        this.frameFill = 0;
        const event = this.decide(levelDb(this.frame));
        if (event) events.push(event);
      }
    }
    return events;
  }

  private decide(level: number): VoiceEvent | null {
    const startMs = this.framesSeen * frameMs;
    const endMs = startMs + frameMs;
    this.framesSeen++;
    const loud = level > this.floor.level() + marginDb(this.options.threshold);
    this.floor.add(level);
    return this.speaking ? this.whileSpeaking(loud, endMs) : this.whileSilent(loud, startMs, endMs);
  }

  private whileSilent(loud: boolean, startMs: number, endMs: number): VoiceEvent | null {
    if (this.candidate && startMs - this.candidate.lastLoudEndMs > candidateGapMs) this.candidate = null;
    if (!loud) return null;
    this.candidate ??= { startMs, loudMs: 0, lastLoudEndMs: endMs };
    this.candidate.loudMs += frameMs;
    this.candidate.lastLoudEndMs = endMs;
    if (this.candidate.loudMs < confirmMs) return null;
    this.speaking = true;
    this.lastSpeechEndMs = endMs;
    const atMs = Math.max(0, this.candidate.startMs - this.options.prefixPaddingMs);
    this.candidate = null;
    return { type: "speech_started", atMs };
  }

  private whileSpeaking(loud: boolean, endMs: number): VoiceEvent | null {
    if (loud) {
      this.lastSpeechEndMs = endMs;
      return null;
    }
    if (endMs - this.lastSpeechEndMs < this.options.silenceDurationMs) return null;
    this.speaking = false;
    return { type: "speech_stopped", atMs: this.lastSpeechEndMs };
  }
}

/** A frame's loudness in dB relative to full scale (a full-scale square wave is 0 dB). */
function levelDb(frame: Int16Array): number {
  let power = 0;
  // Indexed: a typed array's iterator cost a live session's event loop several times the arithmetic.
  for (let i = 0; i < frame.length; i++) power += frame[i]! * frame[i]!;
  return 10 * Math.log10(power / frame.length / 32768 ** 2 + 1e-12);
}
