/**
 * A session's turns as they are cut and recognized: the events that tell the client of them (speech_started and
 * speech_stopped, committed, completed, in order), and each turn's final words, kept for the task.
 */
import type { LiveTurn } from "./live-session-types.ts";
import { newEventId, newItemId, type ServerEvent } from "./server-events.ts";
import { sessionTimed, type SessionRecognition } from "./session-recognition.ts";
import { turnBacklog } from "./session-refusals.ts";
import type { TurnStep } from "./session-turns.ts";

export class SessionTranscript {
  readonly turns: LiveTurn[] = [];
  private readonly pending = new Set<Promise<void>>();
  private lastItemId: string | null = null;

  constructor(private readonly send: (event: ServerEvent) => void) {}

  /** Turns ended whose final text has not been sent yet. */
  get awaitingFinal(): number {
    return this.pending.size;
  }

  /** Resolves once every ended turn's final text has been sent. */
  settled(): Promise<unknown> {
    return Promise.all(this.pending);
  }

  /** Does what the cutter's steps say: audio to the open turn, turns started and ended, each told to the client. */
  apply(recognition: SessionRecognition, steps: TurnStep[], arrivedAt: number): void {
    for (const step of steps) {
      if (step.type === "audio") recognition.push(step.samples, arrivedAt);
      else if (step.type === "held") this.send(turnBacklog(null));
      else if (step.type === "started") {
        const itemId = newItemId();
        recognition.start({ itemId, startMs: step.atMs });
        if (step.detected)
          this.send({ type: "input_audio_buffer.speech_started", event_id: newEventId(), audio_start_ms: Math.round(step.atMs), item_id: itemId });
      } else {
        const turn = recognition.openTurn;
        if (turn === null) continue;
        if (step.detected)
          this.send({ type: "input_audio_buffer.speech_stopped", event_id: newEventId(), audio_end_ms: Math.round(step.atMs), item_id: turn.itemId });
        this.send({ type: "input_audio_buffer.committed", event_id: newEventId(), item_id: turn.itemId, previous_item_id: this.lastItemId });
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
      this.send({
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
    const settle = () => void this.pending.delete(done);
    done.then(settle, settle);
  }
}
