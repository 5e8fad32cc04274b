/**
 * The live sessions this process runs, so that the service's stop can end them: a WebSocket stays open as long as its
 * client wants, and the HTTP server's own stop waits for every connection. Each session ends as any other end does
 * (session-end.ts): an `error` event that says the service is stopping, its open turn finished and every final sent,
 * the recording kept as a task, `session.closed` naming it, then close 1001 (going away). From then on new sessions
 * are refused (routes.ts).
 */
import { logger } from "../logging/logger.ts";
import { sessionError } from "./server-events.ts";
import type { EndRequest } from "./session-end.ts";
import type { LiveSession } from "./session-runtime.ts";

const log = logger("live");

/**
 * How long the stop waits for the sessions to end: a final pass over the open turn and the task's creation take well
 * under a second with PocketSphinx, a few with whisper on a long turn; with the server's drain after it, the whole stop
 * stays within the 10 s a container's stop waits before it kills.
 */
export const shutdownGraceMs = 6000;

export const shutdownMessage = "The service is shutting down: this session ended, and what it recorded is kept as a task. Connect again in a moment.";
export const refusedWhileStopping = "The service is shutting down and opens no new live sessions; connect again in a moment.";

export const shutdownEnd = (): EndRequest => ({
  reason: "server_shutdown",
  notice: sessionError("server_shutdown", shutdownMessage, "server_error"),
  closeCode: 1001,
  announce: true,
});

type Open = { session: LiveSession; close(code: number, reason: string): void };

export class OpenSessions {
  private readonly open = new Map<string, Open>();
  private ending: Promise<boolean> | null = null;

  /** Whether the stop has begun: a session asked for now is refused. */
  get stopping(): boolean {
    return this.ending !== null;
  }

  /** Holds a session until it ends; one that opens once the stop has begun is ended at once. `close` closes its socket. */
  add(session: LiveSession, close: (code: number, reason: string) => void): LiveSession {
    this.open.set(session.id, { session, close });
    if (this.stopping) void endForShutdown(session);
    return session;
  }

  /** The session ended (whatever ended it). */
  remove(sessionId: string): void {
    this.open.delete(sessionId);
  }

  /**
   * Ends every open session and refuses new ones; resolves once all have ended (true), or after `graceMs` (false):
   * the sockets still open then are closed with 1001 at once, and their sessions' ends go on while the service stops,
   * which may cut a task's creation short (its recording is then lost). Runs once; later calls get the first's answer.
   */
  stop(graceMs = shutdownGraceMs): Promise<boolean> {
    this.ending ??= this.endAll(graceMs);
    return this.ending;
  }

  private async endAll(graceMs: number): Promise<boolean> {
    const ends = [...this.open.values()].map(({ session }) => endForShutdown(session));
    if (ends.length === 0) return true;
    log.info({ sessions: ends.length }, "ending live sessions: the service is stopping");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    const inTime = await Promise.race([Promise.allSettled(ends).then(() => true as const), late]);
    clearTimeout(timer);
    if (!inTime) {
      log.warn({ sessions: this.open.size, graceMs }, "live sessions still ending when the stop's grace ran out: their sockets were closed");
      for (const { close } of this.open.values()) close(1001, "server_shutdown");
    }
    return inTime;
  }
}

/** Once the session has started (its recording open), so that what it set up is there to finish. */
const endForShutdown = (session: LiveSession): Promise<void> => session.whenStarted().then(() => session.end(shutdownEnd()));
