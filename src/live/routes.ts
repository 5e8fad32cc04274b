/**
 * `GET /v1/realtime?intent=transcription`: OpenAI's Realtime API for transcription sessions, over a WebSocket. The
 * upgrade is authenticated and admitted before any audio (realtime-auth.ts, realtime-admission.ts); a refused one is
 * still upgraded, so that the client reads why in an `error` event (a browser sees nothing of a refused handshake),
 * then closed: 1008 for credentials and the account's limits, 1013 for the service's capacity.
 */
import { randomBytes } from "node:crypto";
import type { Server } from "bun";
import { Elysia, t } from "elysia";
import { logger } from "../logging/logger.ts";
import { requestContext } from "../http/correlation.ts";
import { openAiErrorJson } from "../http/openai-errors.ts";
import { byUser, type EventMetadata } from "../core/event.ts";
import type { EndedSession } from "./live-session-types.ts";
import { authenticateUpgrade, offeredProtocols, type UpgradeAuthentication } from "./realtime-auth.ts";
import type { LiveAdmission } from "./realtime-admission.ts";
import { refusedWhileStopping, type OpenSessions } from "./open-sessions.ts";
import { refusedSocket, SessionSocket, sessionSocket, type SocketHandlers } from "./realtime-socket.ts";
import { LiveSession } from "./session-runtime.ts";
import type { SessionPorts } from "./session-ports.ts";
import type { LiveObserver } from "./metrics.ts";
import { realtimeDetail } from "./route-docs.ts";

const log = logger("live");

/** What every session is built from, besides its socket and its account. */
export type SessionServices = Pick<SessionPorts, "openRecognizer" | "detector" | "resampler" | "openAudio" | "offer" | "limits" | "now"> & {
  keep(ended: EndedSession, metadata: EventMetadata): Promise<{ taskId: number } | null>;
  /** The account's balance less what its other open sessions recorded; with a session, first records that session's audio. */
  remainingSeconds(userId: number, sessionId?: string, recordedMs?: number): Promise<number>;
  observe: LiveObserver;
  /** Releases what the engines loaded (whisper's model), once no session uses them: at the service's stop. */
  closeEngines(): Promise<void>;
};

/** A connection's handlers, and what undoes its admission should the handshake fail after it. */
type Connection = { handlers: SocketHandlers; abandon(): void };

const refused = (code: string, message: string, closeCode: number): Connection => ({ handlers: refusedSocket(code, message, closeCode), abandon() {} });

/** A connection asked for once the service has begun to stop: 1013, try again (another replica, or this one restarted). */
const stopping = () => refused("server_shutdown", refusedWhileStopping, 1013);

export function realtimeRoutes(parts: { auth: UpgradeAuthentication; admission: LiveAdmission; services: SessionServices; sessions: OpenSessions }) {
  const { auth, admission, services, sessions } = parts;
  const connect = async (request: Request, server: Server<unknown>): Promise<Connection> => {
    if (sessions.stopping) return stopping();
    const authenticated = await authenticateUpgrade({ request, server }, auth);
    if (!authenticated.ok) return refused(authenticated.refusal.code, authenticated.refusal.message, 1008);
    const { caller } = authenticated.authentication;
    requestContext(request).userId = caller.userId;
    const query = new URL(request.url, "http://localhost").searchParams;
    if (query.has("model")) {
      return refused("unsupported_session_type", "Only transcription sessions are offered: connect with ?intent=transcription and no model.", 1008);
    }
    if (query.get("intent") !== "transcription") return refused("invalid_intent", "Connect with ?intent=transcription.", 1008);
    const sessionId = `sess_${randomBytes(12).toString("base64url")}`;
    const admitted = await admission.admit(caller.userId, sessionId);
    if (!admitted.ok) return refused(admitted.refusal.code, admitted.refusal.message, admitted.refusal.closeCode);
    if (sessions.stopping) {
      await admitted.release();
      return stopping();
    }
    const metadata = byUser(caller.userId, requestContext(request).id);
    const socket = new SessionSocket();
    const ports: SessionPorts = {
      ...services,
      send: (event) => socket.send(event),
      close: (code, reason) => socket.close(code, reason),
      keep: (ended) => services.keep(ended, metadata),
      remainingSeconds: (recordedMs) => services.remainingSeconds(caller.userId, sessionId, recordedMs),
      release: admitted.release,
      observe: {
        audioReceived: services.observe.audioReceived,
        partialLatency: services.observe.partialLatency,
        ended: (summary) => {
          sessions.remove(sessionId);
          services.observe.closed();
          log.info({ ...summary, reqId: metadata.correlationId }, "live session ended");
        },
      },
    };
    const handlers = sessionSocket(socket, () => {
      services.observe.opened();
      return sessions.add(new LiveSession(sessionId, caller.userId, ports, admitted.remainingSeconds), ports.close);
    });
    return { handlers, abandon: () => void admitted.release() };
  };

  return new Elysia({ name: "live-routes" }).get(
    "/v1/realtime",
    async ({ request, server, set }) => {
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket" || server === null) {
        return openAiErrorJson(426, "This endpoint is a WebSocket: connect with ws:// or wss:// and ?intent=transcription.", {
          code: "upgrade_required",
          headers: { upgrade: "websocket" },
        });
      }
      const connection = await connect(request, server);
      const answered = offeredProtocols(request).includes("realtime") ? { "sec-websocket-protocol": "realtime" } : undefined;
      if (!server.upgrade(request, { headers: answered, data: connection.handlers })) {
        connection.abandon();
        return openAiErrorJson(400, "The WebSocket handshake failed.", { code: "upgrade_failed" });
      }
      // The request's log line and metrics show the switch of protocols, not a 200.
      set.status = 101;
      return undefined;
    },
    {
      query: t.Object({ intent: t.Optional(t.String({ maxLength: 64 })), model: t.Optional(t.String({ maxLength: 256 })) }, { additionalProperties: true }),
      detail: realtimeDetail,
    },
  );
}
