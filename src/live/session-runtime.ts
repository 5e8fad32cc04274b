/**
 * One live session: client events in, server events out. Audio is decoded, paced, resampled to 16 kHz, recorded, and
 * cut into turns (session-turns.ts) whose audio goes to the recognizer (session-recognition.ts) and whose events and
 * final words session-transcript.ts keeps; limits end the session (session-end.ts, session-clock.ts), budgets bound
 * what a client may make it do (error-budget.ts, session-refusals.ts). Everything outside (the socket, the engines, the
 * task, the clock) comes through `SessionPorts`, so the tests drive a session with fakes.
 */
import { decodePcm16Base64 } from "./audio/pcm.ts";
import { AudioPacing } from "./audio/pacing.ts";
import type { SessionAudio } from "./live-session-types.ts";
import type { ClientEvent, SessionUpdate } from "./client-events.ts";
import { maxEventBytes, readClientEvent } from "./protocol-read.ts";
import { errorEvent, newEventId, type ServerEvent } from "./server-events.ts";
import { defaultSessionConfig, sessionView, updatedConfig, type SessionConfig, type TurnDetection } from "./session-config.ts";
import { SessionRecognition } from "./session-recognition.ts";
import { TurnCutter } from "./session-turns.ts";
import type { SessionPorts } from "./session-ports.ts";
import { fastestSpeed, reachedLimit, recordingFailed, SessionEnding, tooFast, unavailable, type EndRequest } from "./session-end.ts";
import { liveSampleRate } from "./streaming-engine.ts";
import { EventBudgets, tooManyErrors, tooManyEvents } from "./error-budget.ts";
import { SessionClock } from "./session-clock.ts";
import { SessionTranscript } from "./session-transcript.ts";
import { commitEmpty, maxTurnsAwaitingFinal, maxUndecodedMs, minCommitMs, noAudio, recognizerBehind, turnBacklog } from "./session-refusals.ts";

export class LiveSession {
  private config: SessionConfig = defaultSessionConfig;
  private readonly cutter: TurnCutter;
  private resampler: { push(samples: Int16Array): Int16Array };
  private readonly pacing: AudioPacing;
  private recognition: SessionRecognition | null = null;
  private audio: SessionAudio | null = null;
  private readonly transcript: SessionTranscript;
  private readonly started: Promise<void>;
  private ready = false;
  private readonly clock: SessionClock;
  private budgetMs: number;
  private balanceReadAt: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private ending: SessionEnding | null = null;
  private readonly budgets = new EventBudgets();
  readonly startedAt = new Date();

  constructor(
    readonly id: string,
    readonly userId: number,
    private readonly ports: SessionPorts,
    remainingSeconds: number,
  ) {
    const detection = this.config.turnDetection;
    const mayStop = (stoppedInChunk: number) => this.transcript.awaitingFinal + stoppedInChunk < maxTurnsAwaitingFinal;
    this.cutter = new TurnCutter(this.detectorFor(detection), detection?.prefixPaddingMs ?? 0, mayStop);
    this.transcript = new SessionTranscript(ports.send);
    this.resampler = ports.resampler(this.config.rate);
    this.pacing = new AudioPacing({ speed: fastestSpeed, burstMs: ports.limits.burstMs });
    const now = ports.now();
    this.clock = new SessionClock(now, ports.limits);
    this.budgetMs = remainingSeconds * 1000;
    this.balanceReadAt = now;
    // A recording that cannot be opened (a full disk, a temp folder gone): the client is told, and the session ends.
    this.started = this.start().catch((error: unknown) => void this.end(unavailable(error)));
  }

  private async start(): Promise<void> {
    const audio = await this.ports.openAudio();
    // Ended while the recording opened (the client went at once): nothing of it is kept, no timer starts.
    if (this.ending !== null) return void (await audio.discard());
    this.audio = audio;
    this.ready = true;
    this.ports.send({ type: "session.created", event_id: newEventId(), session: sessionView(this.id, this.config) });
    this.timer = setInterval(() => this.tick(), this.ports.limits.partialEveryMs);
  }

  /** Resolves once the session is ready for events (its recording opened). */
  whenStarted(): Promise<void> {
    return this.started;
  }

  /** One frame from the client. Frames that arrive while the session starts wait, in order; every frame is budgeted. */
  receive(frame: string | Uint8Array): void {
    if (this.ending !== null) return;
    if (!this.budgets.frame(this.ports.now())) void this.end(tooManyEvents());
    else if (this.ready) this.handle(frame);
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
        finishTurn: () => this.recognition && this.transcript.apply(this.recognition, this.cutter.end(), this.ports.now()),
        pendingTurns: () => this.transcript.settled(),
        closeRecognition: async () => this.recognition?.close(),
        audio: () => this.audio,
        ended: (wavPath, durationMs) => ({
          sessionId: this.id,
          userId: this.userId,
          wavPath,
          durationMs,
          turns: this.transcript.turns,
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
    if (answer === null) return;
    const verdict = answer.type === "error" ? this.budgets.answer(answer.error.code, this.ports.now()) : "send";
    if (verdict === "send") this.ports.send(answer);
    else if (verdict === "end") void this.end(tooManyErrors());
  }

  /** Does what the event asks; returns the event that answers it, if one does (others come as turns go). */
  private dispatch(event: ClientEvent): ServerEvent | null {
    const eventId = event.event_id ?? null;
    switch (event.type) {
      case "session.update":
        return this.update(event);
      case "input_audio_buffer.append":
        return this.append(event.audio, eventId);
      case "input_audio_buffer.commit":
        if (this.cutter.turnAudioMs < minCommitMs) return commitEmpty(eventId);
        if (this.transcript.awaitingFinal >= maxTurnsAwaitingFinal) return turnBacklog(eventId);
        this.finishTurn();
        return null;
      case "input_audio_buffer.clear":
        if (this.cutter.inTurn) this.recognition?.clear();
        this.cutter.clear();
        return { type: "input_audio_buffer.cleared", event_id: newEventId() };
      case "session.close":
        void this.end({ reason: "closed", notice: null, closeCode: 1000, announce: true });
        return null;
    }
  }

  private finishTurn(): void {
    if (this.recognition !== null) this.transcript.apply(this.recognition, this.cutter.end(), this.ports.now());
  }

  private detectorFor(detection: TurnDetection | null) {
    return detection === null ? null : this.ports.detector(detection);
  }

  private update(event: SessionUpdate): ServerEvent {
    const outcome = updatedConfig(this.config, event, this.ports.offer, this.recognition !== null);
    if (!outcome.ok) return errorEvent(outcome.problem);
    const before = this.config;
    this.config = outcome.config;
    if (outcome.config.rate !== before.rate) this.resampler = this.ports.resampler(outcome.config.rate);
    const detection = outcome.config.turnDetection;
    if (JSON.stringify(detection) !== JSON.stringify(before.turnDetection))
      this.cutter.detectWith(this.detectorFor(detection), detection?.prefixPaddingMs ?? 0);
    return { type: "session.updated", event_id: newEventId(), session: sessionView(this.id, this.config) };
  }

  private append(base64: string, eventId: string | null): ServerEvent | null {
    const decoded = decodePcm16Base64(base64, Math.floor((maxEventBytes * 3) / 4));
    if (!decoded.ok) return errorEvent({ code: "invalid_audio", message: `Invalid audio: ${decoded.reason}.`, param: "audio", eventId });
    if (decoded.samples.length === 0) return noAudio(eventId);
    const undecodedMs = this.recognition?.backlogMs ?? 0;
    if (undecodedMs > maxUndecodedMs) return recognizerBehind(undecodedMs, eventId);
    const now = this.ports.now();
    const audioMs = (decoded.samples.length / this.config.rate) * 1000;
    if (!this.pacing.admit(audioMs, now)) {
      return errorEvent({ code: "audio_too_fast", message: tooFast(this.ports.limits.burstMs), param: "audio", eventId });
    }
    const recognition = (this.recognition ??= new SessionRecognition(this.ports.openRecognizer(this.config), (error) => void this.end(unavailable(error))));
    const samples = this.resampler.push(decoded.samples);
    try {
      this.audio?.append(samples);
    } catch (error) {
      // A full disk (ENOSPC), the file gone: what is not recorded cannot become the task, so the session ends now.
      void this.end(recordingFailed(error));
      return null;
    }
    this.ports.observe.audioReceived(samples.length / liveSampleRate);
    this.clock.heard(audioMs, now);
    this.transcript.apply(recognition, this.cutter.cut(samples), now);
    this.askPartial();
    const limit = reachedLimit(this.cutter.audioMs, this.ports.limits.maxSessionMs, this.budgetMs);
    if (limit !== null) void this.end(limit);
    return null;
  }

  private tick(): void {
    const now = this.ports.now();
    const due = this.clock.due(now);
    if (due !== null) return void this.end(due);
    if (now - this.balanceReadAt >= this.ports.limits.balanceEveryMs) {
      // What this session recorded is charged only when it ends, so the balance read now is what it may still record in all.
      this.balanceReadAt = now;
      void this.ports.remainingSeconds(this.cutter.audioMs).then(
        (seconds) => void (this.budgetMs = seconds * 1000),
        () => undefined,
      );
    }
    this.askPartial();
  }

  /**
   * Asks for the open turn's hypothesis (SessionRecognition asks only when none is in flight and audio came since): after
   * every append as well as on the timer, so a word firms up as soon as a second hypothesis agrees, not a tick later.
   */
  private askPartial(): void {
    void this.recognition?.partial(this.ports.now, (partial) => {
      const { itemId: item_id, delta } = partial;
      this.ports.send({ type: "conversation.item.input_audio_transcription.delta", event_id: newEventId(), item_id, content_index: 0, delta });
      this.ports.observe.partialLatency(partial.latencyMs / 1000);
    });
  }
}
