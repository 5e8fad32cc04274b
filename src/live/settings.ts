import { integer } from "../config/setting.ts";

const group = "live transcription";

/** `GET /v1/realtime` (docs/api.md): how many sessions, how long, and how fast a client may send audio. */
export const liveSettings = {
  LIVE_SESSIONS_PER_ACCOUNT: integer({
    group,
    min: 0,
    max: 100,
    fallback: 2,
    description:
      "Live transcription sessions (GET /v1/realtime) one account may hold open at once, across every API process; one more is refused " +
      "with an error event and close code 1008. 0 turns live transcription off.",
  }),
  LIVE_SESSIONS_AT_ONCE: integer({
    group,
    min: 0,
    max: 10_000,
    fallback: 4,
    description:
      "Live sessions one API process runs at once, whoever holds them; one more is refused with an error event and close code 1013 (try " +
      "again later). Each decodes speech as it arrives: with PocketSphinx about a third of a core and 70 MB, so 4 fit two cores; raise it " +
      "with the cores.",
  }),
  LIVE_SESSION_MAX_SECONDS: integer({
    group,
    min: 10,
    max: 24 * 3600,
    fallback: 4 * 3600,
    description:
      "The longest a live session runs, in seconds of audio received or of time connected, whichever comes first; then it ends (its open " +
      "turn finished) and becomes a task.",
  }),
  LIVE_IDLE_TIMEOUT_SECONDS: integer({
    group,
    min: 5,
    max: 3600,
    fallback: 120,
    description: "A live session that receives no audio for this long ends, and becomes a task of what it received.",
  }),
  LIVE_BURST_SECONDS: integer({
    group,
    min: 0,
    max: 600,
    fallback: 30,
    description:
      "How far ahead of twice real time a live session's audio may run (a client catching up, a file streamed fast); audio beyond it is " +
      "dropped with an error event, so memory stays bounded.",
  }),
} as const;

/** The live sessions' limits, as the composition root reads them. */
export type LiveConfig = {
  sessionsPerAccount: number;
  sessionsAtOnce: number;
  maxSessionMs: number;
  idleTimeoutMs: number;
  burstMs: number;
};

type LiveValues = { [K in keyof typeof liveSettings]: number };

export function liveConfigOf(s: LiveValues): LiveConfig {
  return {
    sessionsPerAccount: s.LIVE_SESSIONS_PER_ACCOUNT,
    sessionsAtOnce: s.LIVE_SESSIONS_AT_ONCE,
    maxSessionMs: s.LIVE_SESSION_MAX_SECONDS * 1000,
    idleTimeoutMs: s.LIVE_IDLE_TIMEOUT_SECONDS * 1000,
    burstMs: s.LIVE_BURST_SECONDS * 1000,
  };
}
