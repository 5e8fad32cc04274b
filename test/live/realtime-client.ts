/**
 * A test client of the realtime protocol over a real port: what it sends is typed with the `openai` package's client
 * events (plus Scribe's `session.close`), and what it receives is checked against its server events' types, so a shape
 * that drifted from OpenAI's fails to compile here.
 */
import type { RealtimeClientEvent, RealtimeServerEvent, SessionUpdateEvent, InputAudioBufferAppendEvent } from "openai/resources/realtime/realtime";
import type { TestApp } from "../support/test-app.ts";

/** Scribe's extensions: `session.close` from the client, `session.closed` and `words` from the server. */
export type ScribeClientEvent = RealtimeClientEvent | { type: "session.close"; event_id?: string };
export type ScribeServerEvent = RealtimeServerEvent | { type: "session.closed"; event_id: string; task_id: number | null };
export type ServerEventOf<T extends ScribeServerEvent["type"]> = Extract<ScribeServerEvent, { type: T }>;

export type Connection = { headers?: Record<string, string>; protocols?: string[]; query?: string };

/** Listens on a free port of 127.0.0.1 and returns its ws:// base. */
export function listen(app: TestApp): { url: string; stop(): Promise<void> } {
  const server = app.service.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
  return { url: `ws://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export class RealtimeClient {
  readonly events: ScribeServerEvent[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.addEventListener("message", (message) => {
      this.events.push(JSON.parse(String(message.data)) as ScribeServerEvent);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })));
    void this.closed.then(() => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async connect(base: string, connection: Connection = {}): Promise<RealtimeClient> {
    const url = `${base}/v1/realtime${connection.query ?? "?intent=transcription"}`;
    const socket = new WebSocket(url, { headers: connection.headers ?? {}, protocols: connection.protocols ?? [] });
    const client = new RealtimeClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve());
      socket.addEventListener("error", () => reject(new Error(`could not connect to ${url}`)));
    });
    return client;
  }

  send(event: ScribeClientEvent): void {
    this.socket.send(JSON.stringify(event));
  }

  sendRaw(frame: string | Uint8Array): void {
    this.socket.send(frame);
  }

  /** Sends 16-bit PCM (little-endian) as one append. */
  append(samples: Int16Array): void {
    const event: InputAudioBufferAppendEvent = {
      type: "input_audio_buffer.append",
      audio: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString("base64"),
    };
    this.send(event);
  }

  update(session: SessionUpdateEvent["session"], eventId?: string): void {
    this.send({ type: "session.update", session, ...(eventId !== undefined && { event_id: eventId }) });
  }

  /** The `count`th event of a type (from the first), waiting for it. */
  async next<T extends ScribeServerEvent["type"]>(type: T, count = 1, timeoutMs = 10_000): Promise<ServerEventOf<T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.filter((event): event is ServerEventOf<T> => event.type === type);
      if (found.length >= count) return found[count - 1]!;
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error(`closed before ${type} #${count}; got ${this.events.map((e) => e.type).join(", ")}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} #${count} within ${timeoutMs} ms; got ${this.events.map((e) => e.type).join(", ")}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The errors received so far. */
  errors(): ServerEventOf<"error">[] {
    return this.events.filter((event): event is ServerEventOf<"error"> => event.type === "error");
  }

  close(): void {
    this.socket.close();
  }
}
