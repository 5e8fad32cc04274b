/** The services every live session of a process shares, built once when the api role starts (index.ts). */
import { join } from "node:path";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptionConfig } from "../transcription/config.ts";
import { transcriptionTempRoot } from "../transcription/temp-sweep.ts";
import { Resampler } from "./audio/resample.ts";
import { VoiceActivity } from "./audio/voice-activity.ts";
import { liveEngines } from "./engines/index.ts";
import { LiveTasks } from "./live-task.ts";
import { liveEvents } from "./metrics.ts";
import { openSessionAudio } from "./session-audio.ts";
import { remainingBalanceSeconds, remainingForSession } from "./session-balance.ts";
import { LiveSessionSlots } from "./session-slots.ts";
import { liveSampleRate } from "./streaming-engine.ts";
import type { SessionServices } from "./routes.ts";
import type { LiveConfig } from "./settings.ts";

/** A turn's partial text is asked for this often: a delta at least every 300 ms while words firm up. */
export const partialEveryMs = 250;
/** The balance is read again this often while a session runs (other tasks and sessions spend it too). */
export const balanceEveryMs = 15_000;

export function sessionServices(parts: {
  documents: DocumentStore;
  blobs: BlobStore;
  tasks: Tasks;
  transcription: TranscriptionConfig;
  live: LiveConfig;
}): SessionServices {
  const { documents, blobs, tasks, transcription, live } = parts;
  const offer = tasks.recognitionOffer;
  const engines = liveEngines(transcription, offer);
  const liveTasks = new LiveTasks(tasks, blobs, documents, { maxSpeakers: transcription.maxSpeakers });
  // The leases the admission holds (documents in the store, nothing kept here): each session notes in its own what it recorded.
  const slots = new LiveSessionSlots(documents, live.sessionsPerAccount);
  // Named as the task folders are (`scribe-task-<pid>-...`): once this process is gone, the temp sweep removes what a session
  // killed with it was recording, so no one's speech stays on disk without a task.
  const audioDir = join(transcriptionTempRoot(transcription.tempDir), `scribe-task-${process.pid}-0-live-recordings`);
  return {
    offer,
    limits: { maxSessionMs: live.maxSessionMs, idleTimeoutMs: live.idleTimeoutMs, burstMs: live.burstMs, partialEveryMs, balanceEveryMs },
    openRecognizer: (config) => engines.engineFor(config.engine).open({ language: config.language, vocabulary: config.vocabulary }),
    detector: (detection) =>
      new VoiceActivity({ threshold: detection.threshold, prefixPaddingMs: detection.prefixPaddingMs, silenceDurationMs: detection.silenceDurationMs }),
    resampler: (rate) => new Resampler(rate, liveSampleRate),
    openAudio: () => openSessionAudio(audioDir),
    keep: (ended, metadata) => liveTasks.keep(ended, metadata),
    // With the session and what it recorded, the balance it shares with the account's other open sessions (session-balance.ts).
    remainingSeconds: (userId: number, sessionId?: string, recordedMs?: number) =>
      sessionId === undefined || recordedMs === undefined
        ? remainingBalanceSeconds(documents, userId)
        : remainingForSession(slots, documents, userId, sessionId, recordedMs),
    now: () => performance.now(),
    observe: liveEvents,
    closeEngines: () => engines.close(),
  };
}
