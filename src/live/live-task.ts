/** A live session, once it ends, kept as a task of its account (issue 31, item 3). */
import { randomBytes } from "node:crypto";
import { rm, stat } from "node:fs/promises";
import type { BlobStore } from "../blobs/port.ts";
import type { EventMetadata } from "../core/event.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Segment } from "../tasks/segments.ts";
import type { Tasks } from "../tasks/service.ts";
import { maxVocabularyEntries, maxVocabularyEntryLength, recognitionChoice, type RecognitionFields } from "../tasks/recognition-choice.ts";
import { logger } from "../logging/logger.ts";
import type { EndedSession } from "./live-session-types.ts";
import { segmentsOfTurns } from "./live-transcript.ts";
import { withSpeakers } from "./live-speakers.ts";
import { forgetRecording, noteRecording } from "./unkept-recordings.ts";

const log = logger("live");

/** "Live transcription 2026-11-27 14:03": when the session began, in UTC (the server knows no reader's time zone). */
export function liveTaskName(startedAt: Date): string {
  const iso = startedAt.toISOString();
  return `Live transcription ${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/**
 * Turns an ended session into a task through the tasks capability, like any other task's creation:
 * - the WAV is stored where uploads keep media (`uploads/<user>/<128 random bits>/<file>`), so the task's audio route
 *   serves it, the task reads only its owner's media, and deleting the task deletes it;
 * - the turns are the task's transcript (one segment per turn, timed words kept), with speakers told apart on the
 *   recording when the session asked; the supplied-transcripts worker then summarises and finishes the task, and
 *   the exports, search and history follow from its events as for any task;
 * - duration and cost are the recording's seconds (rounded up), charged as the task is created (TaskSlots.admitLive),
 *   never below a zero balance: the speaker already has the transcript, so deleting the task, even at once, or its
 *   failing refunds nothing, and its finish charges nothing more;
 * - admitted whatever the count of tasks in progress (the speaker has spoken; TaskSlots.admit), and not refused for
 *   the balance, which the session checked while it ran and ended when it ran out.
 */
export class LiveTasks {
  constructor(
    private readonly tasks: Tasks,
    private readonly blobs: BlobStore,
    private readonly db: DocumentStore,
    private readonly options: { maxSpeakers: number },
  ) {}

  /**
   * The task made of `ended`, or null when the session recorded nothing (its file is removed). The WAV is removed once
   * the task holds it; when keeping fails the error is thrown and the file left for the caller to discard.
   */
  async keep(ended: EndedSession, metadata: EventMetadata): Promise<{ taskId: number } | null> {
    if (ended.durationMs <= 0) {
      await rm(ended.wavPath, { force: true });
      return null;
    }
    const segments = await this.transcriptOf(ended);
    const seconds = Math.ceil(ended.durationMs / 1000);
    const name = liveTaskName(ended.startedAt);
    const file = `${name.replaceAll(":", "-").replaceAll(" ", "_")}.wav`;
    const key = `uploads/${ended.userId}/${randomBytes(16).toString("hex")}/${file}`;
    const size = (await stat(ended.wavPath)).size;
    await noteRecording(this.db, key, ended.userId);
    await this.blobs.put(key, Bun.file(ended.wavPath), { contentType: "audio/wav" });
    const input = { disk: "objstore" as const, name, path: key, file, size, duration: seconds, cost: seconds, speaker_diarization: ended.speakerDiarization };
    // Should creating fail, the note stays: the sweep deletes the blob unless a task names it by then (unkept-recordings.ts).
    const task = await this.tasks.create(ended.userId, { ...input, ...this.recognitionOf(ended) }, metadata, { live: { segments } });
    await forgetRecording(this.db, key);
    await rm(ended.wavPath, { force: true });
    log.info(
      { taskId: task.id, userId: ended.userId, sessionId: ended.sessionId, seconds, turns: segments.length, end: ended.end },
      "live session kept as a task",
    );
    return { taskId: task.id };
  }

  /** The turns as segments, with speakers when asked; a diarization that fails leaves them unlabelled (the transcript stands). */
  private async transcriptOf(ended: EndedSession): Promise<Segment[]> {
    const segments = segmentsOfTurns(ended.turns, ended.durationMs);
    if (!ended.speakerDiarization) return segments;
    try {
      return await withSpeakers(segments, ended.wavPath, this.options.maxSpeakers);
    } catch (error) {
      log.warn({ sessionId: ended.sessionId, err: error }, "speakers of a live session could not be told apart; kept without them");
      return segments;
    }
  }

  /**
   * The engine, language and vocabulary the session used, as the task records them. The session checked them when they
   * were set; should the service's offer have changed since (a restart with another configuration), the task is kept
   * without them rather than refused after the speaker spoke.
   */
  private recognitionOf(ended: EndedSession): RecognitionFields {
    const fields: RecognitionFields = {
      ...(ended.engine !== null && { engine: ended.engine }),
      ...(ended.language !== null && { language: ended.language }),
      ...(ended.vocabulary.length > 0 && { vocabulary: ended.vocabulary.filter(isVocabularyEntry).slice(0, maxVocabularyEntries) }),
    };
    try {
      recognitionChoice(fields, this.tasks.recognitionOffer);
      return fields;
    } catch (error) {
      log.warn({ sessionId: ended.sessionId, err: error }, "a live session's engine or language is no longer offered; its task is kept without them");
      return {};
    }
  }
}

/** What a task's vocabulary entry may be (recognition-choice.ts `recognitionFields`): a line of at most 100 characters. */
const isVocabularyEntry = (entry: string) => entry.length >= 1 && entry.length <= maxVocabularyEntryLength && !/[\u0000-\u001f\u007f]/.test(entry);
