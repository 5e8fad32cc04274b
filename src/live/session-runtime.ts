/**
 * One live session: client events in, server events out. Audio is decoded, paced, resampled to 16 kHz, recorded, and
 * cut into turns (session-turns.ts) whose audio goes to the recognizer (session-recognition.ts); limits end the session
 * (session-end.ts). Everything outside (the socket, the engines, the task, the clock) comes through `SessionPorts`, so
 * the tests drive a session with fakes.
 */
import { decodePcm16Base64 } from "./audio/pcm.ts";
import { AudioPacing } from "./audio/pacing.ts";
import type { LiveTurn, SessionAudio } from "./live-session-types.ts";
import type { ClientEvent, SessionUpdate } from "./client-events.ts";
import { maxEventBytes, readClientEvent } from "./protocol-read.ts";
import { errorEvent, newEventId, newItemId, type ServerEvent } from "./server-events.ts";
import { defaultSessionConfig, sessionView, updatedConfig, type SessionConfig } from "./session-config.ts";
import { sessionTimed, SessionRecognition } from "./session-recognition.ts";
import { TurnCutter, type TurnStep } from "./session-turns.ts";
import type { SessionPorts } from "./session-ports.ts";
import { fastestSpeed, idleEnd, reachedLimit, SessionEnding, tooFast, unavailable, type EndRequest } from "./session-end.ts";
import { liveSampleRate } from "./streaming-engine.ts";

export class LiveSession {
  private config: SessionConfig = defaultSessionConfig;
  private readonly cutter: TurnCutter;
  private resampler: { push(samples: Int16Array): Int16Array };
  private readonly pacing: AudioPacing;
  private recognition: SessionRecognition | null = null;
  private audio: SessionAudio | null = null;
  private readonly turns: LiveTurn[] = [];
  private readonly pending = new Set<Promise<void>>();
  private lastItemId: string | null = null;
  private readonly started: Promise<void>;
  private ready = false;
  private lastAudioAt: number;
  private budgetMs: number;
  private balanceReadAt: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private ending: SessionEnding | null = null;
  readonly startedAt = new Date();

  constructor(
    readonly id: string,
    readonly userId: number,
    private readonly ports: SessionPorts,
    remainingSeconds: number,
  ) {
    const detection = this.config.turnDetection;
    this.cutter = new TurnCutter(detection === null ? null : ports.detector(detection), detection?.prefixPaddingMs ?? 0);
    this.resampler = ports.resampler(this.config.rate);
    this.pacing = new AudioPacing({ speed: fastestSpeed, burstMs: ports.limits.burstMs });
    this.lastAudioAt = ports.now();
    this.budgetMs = remainingSeconds * 1000;
    this.balanceReadAt = this.lastAudioAt;
    // A recording that cannot be opened (a full disk, a temp folder gone): the client is told, and the session ends.
    this.started = this.start().catch((error: unknown) => void this.end(unavailable(error)));
  }

  private async start(): Promise<void> {
    this.audio = await this.ports.openAudio();
    this.ready = true;
    this.ports.send({ type: "session.created", event_id: newEventId(), session: sessionView(this.id, this.config) });
    this.timer = setInterval(() => this.tick(), this.ports.limits.partialEveryMs);
  }

  /** Resolves once the session is ready for events (its recording opened). */
  whenStarted(): Promise<void> {
    return this.started;
  }

  /** One frame from the client. Frames that arrive while the session starts wait, in order. */
  receive(frame: string | Uint8Array): void {
    if (this.ready) this.handle(frame);
    else void this.started.then(() => this.handle(frame));
  }

  /** The client went away, or stopped reading: the session ends as if it had closed it, with nobody to tell. */
  clientGone(): Promise<void> {
    return this.end({ reason: "closed", notice: null, closeCode: 1000, announce: false });
  }

  /** Ends the session once: finishes the open turn, makes the task, frees the places, closes the socket. */
  end(request: EndRequest): Promise<void> {
    if (this.ending === null) {
      if (this.timer !== null) clearInterval(this.timer);
      this.ending = new SessionEnding(request, this.ports, {
        sessionId: this.id,
        userId: this.userId,
        finishTurn: () => this.apply(this.cutter.end(), this.ports.now()),
        pendingTurns: () => Promise.all(this.pending).then(() => this.recognition?.close()),
        audio: () => this.audio,
        ended: (wavPath, durationMs) => ({
          sessionId: this.id,
          userId: this.userId,
          wavPath,
          durationMs,
          turns: this.turns,
          engine: this.config.engine,
          language: this.config.language,
          vocabulary: this.config.vocabulary,
          speakerDiarization: this.config.speakers,
          startedAt: this.startedAt,
          end: request.reason,
        }),
      });
    }
    return this.ending.done;
  }

  private handle(frame: string | Uint8Array): void {
    if (this.ending !== null) return;
    const read = readClientEvent(frame);
    const answer = read.ok ? this.dispatch(read.event) : errorEvent(read.problem);
    if (answer !== null) this.ports.send(answer);
  }

  /** Does what the event asks; returns the event that answers it, if one does (others come as turns go). */
  private dispatch(event: ClientEvent): ServerEvent | null {
    const eventId = event.event_id ?? null;
    switch (event.type) {
      case "session.update":
        return this.update(event);
      case "input_audio_buffer.append":
        return this.append(event.audio, eventId);
      case "input_audio_buffer.commit": {
        const steps = this.cutter.end();
        if (steps.length === 0) {
          const message = "There is no audio to commit: nothing was appended since the last turn.";
          return errorEvent({ code: "input_audio_buffer_commit_empty", message, param: null, eventId });
        }
        this.apply(steps, this.ports.now());
        return null;
      }
      case "input_audio_buffer.clear":
        if (this.cutter.inTurn) this.recognition?.clear();
        this.cutter.clear();
        return { type: "input_audio_buffer.cleared", event_id: newEventId() };
      case "session.close":
        void this.end({ reason: "closed", notice: null, closeCode: 1000, announce: true });
        return null;
    }
  }

  private update(event: SessionUpdate): ServerEvent {
    const outcome = updatedConfig(this.config, event, this.ports.offer, this.recognition !== null);
    if (!outcome.ok) return errorEvent(outcome.problem);
    const before = this.config;
    this.config = outcome.config;
    if (outcome.config.rate !== before.rate) this.resampler = this.ports.resampler(outcome.config.rate);
    const detection = outcome.config.turnDetection;
    if (JSON.stringify(detection) !== JSON.stringify(before.turnDetection)) {
      this.cutter.detectWith(detection === null ? null : this.ports.detector(detection), detection?.prefixPaddingMs ?? 0);
    }
    return { type: "session.updated", event_id: newEventId(), session: sessionView(this.id, this.config) };
  }

  private append(base64: string, eventId: string | null): ServerEvent | null {
    const decoded = decodePcm16Base64(base64, Math.floor((maxEventBytes * 3) / 4));
    if (!decoded.ok) return errorEvent({ code: "invalid_audio", message: `Invalid audio: ${decoded.reason}.`, param: "audio", eventId });
    const now = this.ports.now();
    if (!this.pacing.admit((decoded.samples.length / this.config.rate) * 1000, now)) {
      return errorEvent({ code: "audio_too_fast", message: tooFast(this.ports.limits.burstMs), param: "audio", eventId });
    }
    this.recognition ??= new SessionRecognition(this.ports.openRecognizer(this.config), (error) => void this.end(unavailable(error)));
    const samples = this.resampler.push(decoded.samples);
    this.audio?.append(samples);
    this.ports.observe.audioReceived(samples.length / liveSampleRate);
    this.lastAudioAt = now;
    this.apply(this.cutter.cut(samples), now);
    const limit = reachedLimit(this.cutter.audioMs, this.ports.limits.maxSessionMs, this.budgetMs);
    if (limit !== null) void this.end(limit);
    return null;
  }

  private apply(steps: TurnStep[], arrivedAt: number): void {
    const recognition = this.recognition;
    if (recognition === null) return;
    for (const step of steps) {
      if (step.type === "audio") recognition.push(step.samples, arrivedAt);
      else if (step.type === "started") {
        const itemId = newItemId();
        recognition.start({ itemId, startMs: step.atMs });
        if (step.detected)
          this.ports.send({ type: "input_audio_buffer.speech_started", event_id: newEventId(), audio_start_ms: Math.round(step.atMs), item_id: itemId });
      } else {
        const turn = recognition.openTurn;
        if (turn === null) continue;
        if (step.detected)
          this.ports.send({ type: "input_audio_buffer.speech_stopped", event_id: newEventId(), audio_end_ms: Math.round(step.atMs), item_id: turn.itemId });
        this.ports.send({ type: "input_audio_buffer.committed", event_id: newEventId(), item_id: turn.itemId, previous_item_id: this.lastItemId });
        this.lastItemId = turn.itemId;
        this.complete(recognition, turn.itemId, turn.startMs, step.atMs);
      }
    }
  }

  private complete(recognition: SessionRecognition, itemId: string, startMs: number, endMs: number): void {
    const done = recognition.finish().then((result) => {
      const words = sessionTimed(result.words, startMs);
      const transcript = result.text.trim();
      if (transcript !== "") this.turns.push({ start: startMs, end: endMs, text: transcript, words, punctuated: result.punctuated });
      this.ports.send({
        type: "conversation.item.input_audio_transcription.completed",
        event_id: newEventId(),
        item_id: itemId,
        content_index: 0,
        transcript,
        usage: { type: "duration", seconds: Math.round(endMs - startMs) / 1000 },
        words: words.map((word) => ({ word: word.text, start: word.start / 1000, end: word.end / 1000, confidence: word.confidence })),
      });
    });
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  private tick(): void {
    const now = this.ports.now();
    if (now - this.lastAudioAt >= this.ports.limits.idleTimeoutMs) {
      void this.end(idleEnd(this.ports.limits.idleTimeoutMs));
      return;
    }
    if (now - this.balanceReadAt >= this.ports.limits.balanceEveryMs) {
      // What this session recorded is charged only when it ends, so the balance read now is what it may still record in all.
      this.balanceReadAt = now;
      void this.ports.remainingSeconds().then(
        (seconds) => {
          this.budgetMs = seconds * 1000;
        },
        () => undefined,
      );
    }
    void this.recognition?.partial(this.ports.now, (partial) => {
      this.ports.send({
        type: "conversation.item.input_audio_transcription.delta",
        event_id: newEventId(),
        item_id: partial.itemId,
        content_index: 0,
        delta: partial.delta,
      });
      this.ports.observe.partialLatency(partial.latencyMs / 1000);
    });
  }
}
