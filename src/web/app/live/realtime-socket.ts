/**
 * A live transcription session over the WebSocket `/v1/realtime?intent=transcription` of this origin (the session
 * cookie signs it in): opened, configured with `session.update`, fed audio, and ended with a commit and
 * `session.close`, whose `session.closed` names the task the session became.
 */
import { pcm16Base64 } from "./pcm.ts";
import { appendEvent, closeEvent, commitEvent, parseServerEvent, sessionUpdate, type ServerEvent } from "./realtime-events.ts";

/**
 * How a session asked to close answered: `session.closed` with the task it became (null: the server kept nothing), or
 * no answer, the socket closed without one (`dropped`) or none within the time given (`timeout`). Without an answer
 * the server may still have kept, or still keep, the audio as a task.
 */
export type FinishAnswer = { answered: true; taskId: number | null } | { answered: false; why: "timeout" | "dropped" };

export type RealtimeSession = {
  /** Sends 16 kHz PCM16 samples; nothing once the session has ended. */
  append(samples: Int16Array): void;
  /** Commits the audio, asks the session to close, and gives its answer (waited for up to `timeoutMs`). */
  finish(timeoutMs: number): Promise<FinishAnswer>;
  /** Closes at once (the page left, the recording discarded). */
  abandon(): void;
};

export type SessionListener = {
  /** Every event of the session once it is configured: the captions' and the errors'. */
  onEvent(event: ServerEvent): void;
  /** The session ended without being asked (the server closed it, the network failed). */
  onEnded(): void;
};

export type OpenedSession = { ok: true; session: RealtimeSession } | { ok: false; reason: string };

/** Past this, a session that has not said it is ready is taken as unavailable, and the recording goes on without. */
export const readyTimeoutMs = 5000;

/**
 * Opens a session and resolves once the server has taken its configuration (`session.updated`), or with why not:
 * the socket refused or closed, an `error` event (not signed in, no plan for it, too many sessions), no answer in time.
 */
export function openRealtimeSession(url: string, speakers: boolean, listener: SessionListener): Promise<OpenedSession> {
  let socket: WebSocket;
  try {
    socket = new WebSocket(url);
  } catch {
    return Promise.resolve({ ok: false, reason: "the live transcription could not be reached" });
  }
  let phase: "opening" | "open" | "finishing" | "ended" = "opening";
  let answered: (answer: FinishAnswer) => void = () => undefined;
  const send = (event: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(event));
  };
  const end = () => {
    phase = "ended";
    if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(1000);
  };
  const session: RealtimeSession = {
    append(samples) {
      if (phase === "open" && samples.length > 0) send(appendEvent(pcm16Base64(samples)));
    },
    finish(timeoutMs) {
      if (phase !== "open") return Promise.resolve({ answered: false, why: "dropped" });
      phase = "finishing";
      send(commitEvent);
      send(closeEvent);
      return new Promise((resolve) => {
        const timer = setTimeout(() => answered({ answered: false, why: "timeout" }), timeoutMs);
        answered = (answer) => {
          clearTimeout(timer);
          answered = () => undefined;
          end();
          resolve(answer);
        };
      });
    },
    abandon: end,
  };

  return new Promise<OpenedSession>((resolve) => {
    const refuse = (reason: string) => {
      clearTimeout(timer);
      end();
      resolve({ ok: false, reason });
    };
    const timer = setTimeout(() => refuse("the live transcription did not answer in time"), readyTimeoutMs);
    socket.onmessage = (message) => {
      const event = parseServerEvent(message.data);
      if (!event) return;
      if (phase === "opening") {
        if (event.type === "session.created") send(sessionUpdate(speakers));
        else if (event.type === "error") refuse(event.message);
        else if (event.type === "session.updated") {
          clearTimeout(timer);
          phase = "open";
          resolve({ ok: true, session });
        }
        return;
      }
      if (phase === "ended") return;
      listener.onEvent(event);
      if (event.type === "session.closed") answered({ answered: true, taskId: event.taskId });
    };
    socket.onclose = () => {
      if (phase === "opening") refuse("the live transcription is not available");
      else if (phase === "finishing") answered({ answered: false, why: "dropped" });
      else if (phase === "open") {
        phase = "ended";
        listener.onEnded();
      }
    };
  });
}
