/**
 * The WebSocket side of a live session, kept thin: Bun calls these handlers (Elysia's websocket dispatch calls those
 * the upgrade put in the socket's data), and they pass frames to the session and its events to the socket. A client
 * that stops reading is noticed here: once more than `maxBufferedBytes` wait to be sent, the session ends as if the
 * client had gone (it is kept as a task), so a session never holds unbounded memory for a reader that never comes.
 */
import type { ServerWebSocket } from "bun";
import { errorEvent, type ServerEvent } from "./server-events.ts";
import type { LiveSession } from "./session-runtime.ts";

/** What the upgrade puts in the socket's data: Elysia's websocket handler calls these. */
export type SocketHandlers = {
  open(ws: ServerWebSocket<unknown>): void;
  message(ws: ServerWebSocket<unknown>, message: string | Buffer): void;
  close(ws: ServerWebSocket<unknown>, code: number, reason: string): void;
  drain(ws: ServerWebSocket<unknown>): void;
};

/** Events waiting to be sent past this: the client is not reading. Far above what a reading client ever leaves waiting. */
export const maxBufferedBytes = 1024 * 1024;

/** The handlers of a refused connection: the `error` event that says why, then the close. */
export function refusedSocket(code: string, message: string, closeCode: number): SocketHandlers {
  return {
    open(ws) {
      ws.send(JSON.stringify(errorEvent({ code, message, param: null, eventId: null })));
      ws.close(closeCode, code.slice(0, 120));
    },
    message() {},
    close() {},
    drain() {},
  };
}

/** A socket a session writes to: sends while the client reads, and says when it stopped. */
export class SessionSocket {
  private ws: ServerWebSocket<unknown> | null = null;
  private closed = false;
  /** Told once when the client stopped reading or went away. */
  onGone: () => void = () => {};

  attach(ws: ServerWebSocket<unknown>): void {
    this.ws = ws;
  }

  send(event: ServerEvent): void {
    const ws = this.ws;
    if (ws === null || this.closed) return;
    if (ws.getBufferedAmount() > maxBufferedBytes) {
      this.closed = true;
      ws.close(1008, "client_not_reading");
      this.onGone();
      return;
    }
    ws.send(JSON.stringify(event));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ws?.close(code, reason.slice(0, 120));
  }

  /** The client closed, or the connection dropped. */
  gone(): void {
    this.closed = true;
    this.onGone();
  }
}

/** The handlers of an admitted connection: the session starts when the socket opens and ends when it closes. */
export function sessionSocket(socket: SessionSocket, session: () => LiveSession): SocketHandlers {
  let live: LiveSession | null = null;
  return {
    open(ws) {
      socket.attach(ws);
      live = session();
      socket.onGone = () => void live?.clientGone();
    },
    message(_ws, message) {
      live?.receive(typeof message === "string" ? message : new Uint8Array(message));
    },
    close() {
      socket.gone();
    },
    drain() {},
  };
}
