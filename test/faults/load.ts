/**
 * A steady load for the fault cases: a few accounts uploading small spoken recordings (so real recognition is in
 * flight) and editing their tasks (renames, replaced segments, supplied transcripts), each request's answer recorded
 * with its time, so a case can count what was answered 5xx, or not at all, while its fault was on.
 */

/**
 * What the uploaders say (espeak-ng, test/support/media-fixtures.ts): short, so the work a case waits for at its end is
 * a second or two, long enough to be in flight when a fault begins.
 */
export const speechText = "The committee met on Monday to discuss the park.";

/** How a client reaches the API and the signed URLs it hands out: over HTTP (a cluster) or in process. */
export type Transport = {
  /** An authenticated call of the API. */
  api(method: string, path: string, body?: unknown): Promise<Response>;
  /** A PUT to a signed URL, exactly as given. */
  put(url: string, body: Uint8Array, headers: Record<string, string>): Promise<Response>;
};

/** One request's fate: its HTTP status, or "error" when no answer came (refused, reset, timed out). */
export type Outcome = { sentAt: number; answeredAt: number; what: string; status: number | "error" };

type Role = "uploader" | "editor";
type Segment = { start: number; end: number; text: string };

/** Over HTTP with a bearer token; a request that gets no answer within `timeoutMs` counts as failed. */
export function httpTransport(baseUrl: string, token: string, timeoutMs = 20_000): Transport {
  return {
    api: (method, path, body) =>
      fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      }),
    put: (url, body, headers) => fetch(url, { method: "PUT", headers, body, signal: AbortSignal.timeout(timeoutMs) }),
  };
}

class Stopped extends Error {}

/** One account's loop: an uploader keeps one recognition in flight; an editor edits and sometimes supplies a transcript. */
class LoadClient {
  readonly tasks: number[] = [];
  private readonly ended = new Set<number>();
  private turn = 0;

  constructor(
    readonly name: string,
    private readonly role: Role,
    private readonly transport: Transport,
    private readonly speech: Uint8Array,
    private readonly load: Load,
  ) {}

  /** One request, recorded; a 5xx or no answer throws, so the step is abandoned and tried again later. */
  private async request(what: string, send: () => Promise<Response>): Promise<Response> {
    if (!this.load.running) throw new Stopped();
    const sentAt = Date.now();
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      this.load.outcomes.push({ sentAt, answeredAt: Date.now(), what, status: "error" });
      throw error;
    }
    this.load.outcomes.push({ sentAt, answeredAt: Date.now(), what, status: response.status });
    if (response.status >= 500) {
      await response.arrayBuffer().catch(() => undefined);
      throw new Error(`${what}: ${response.status}`);
    }
    return response;
  }

  private async json<T>(what: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T | null }> {
    const response = await this.request(what, () => this.transport.api(method, path, body));
    const text = await response.text();
    return { status: response.status, body: response.ok && text ? (JSON.parse(text) as T) : null };
  }

  /** Sign, PUT every part to its signed URL, complete: the task's id, or null when refused (429: three in flight). */
  private async upload(): Promise<number | null> {
    const file = `${this.name}-${this.tasks.length + 1}.wav`;
    const size = this.speech.byteLength;
    const session = await this.json<{ path: string; upload_id: string; part_size: number; part_count: number }>("sign", "POST", "/api/uploads/sign", {
      file,
      content_type: "audio/wav",
      size,
    });
    if (!session.body) throw new Error(`sign: ${session.status}`);
    const { path, upload_id, part_size, part_count } = session.body;
    for (let n = 1; n <= part_count; n++) {
      const part = await this.json<{ url: string; headers: Record<string, string> }>("sign-part", "POST", "/api/uploads/sign-part", {
        path,
        upload_id,
        part_number: n,
      });
      if (!part.body) throw new Error(`sign-part: ${part.status}`);
      const { url, headers } = part.body;
      const put = await this.request("storage put", () => this.transport.put(url, this.speech.subarray((n - 1) * part_size, n * part_size), headers));
      await put.arrayBuffer();
      if (put.status !== 200) throw new Error(`PUT part ${n}: ${put.status}`);
    }
    const body = { path, upload_id, original_name: file, content_type: "audio/wav", size };
    for (;;) {
      const completed = await this.json<{ task: { id: number } }>("complete", "POST", "/api/uploads/complete", body);
      if (completed.body) return completed.body.task.id;
      if (completed.status !== 429 && completed.status !== 409) throw new Error(`complete: ${completed.status}`);
      await this.pause(200);
    }
  }

  private async supplied(): Promise<number | null> {
    const name = `${this.name} notes ${this.tasks.length + 1}`;
    const body = { disk: "objstore", name, path: `${name}.txt`, segments: [{ start: 0, end: 2000, text: `${name} said this.` }] };
    const created = await this.json<{ id: number }>("create", "POST", "/api/tasks", body);
    return created.body?.id ?? null;
  }

  private async status(id: number): Promise<string | null> {
    const task = await this.json<{ status: string }>("read", "GET", `/api/tasks/${id}`);
    return task.body?.status ?? null;
  }

  /** A rename of one of its tasks, or new segments for a finished one (only a finished task's transcript can be replaced). */
  private async edit(): Promise<void> {
    const id = this.tasks[this.turn % this.tasks.length];
    if (id === undefined) return;
    if (this.ended.has(id) && this.turn % 2 === 0) {
      const segments: Segment[] = [{ start: 0, end: 1500, text: `Edited ${this.turn} by ${this.name}.` }];
      await this.json("edit segments", "PATCH", `/api/tasks/${id}`, { segments });
    } else {
      await this.json("rename", "PATCH", `/api/tasks/${id}`, { name: `${this.name} task ${id} (${this.turn})` });
    }
  }

  private async step(): Promise<void> {
    this.turn++;
    const inFlight = this.tasks.filter((id) => !this.ended.has(id));
    for (const id of inFlight) {
      const status = await this.status(id);
      if (status === "finished" || status === "failed") this.ended.add(id);
    }
    const busy = this.tasks.some((id) => !this.ended.has(id));
    if (this.role === "uploader" && !busy) {
      const id = await this.upload();
      if (id !== null) this.tasks.push(id);
    } else if (this.role === "editor" && !busy && this.turn % 4 === 1) {
      const id = await this.supplied();
      if (id !== null) this.tasks.push(id);
    } else {
      await this.edit();
    }
  }

  private async pause(ms: number): Promise<void> {
    await Bun.sleep(ms);
    if (!this.load.running) throw new Stopped();
  }

  async run(): Promise<void> {
    while (this.load.running) {
      try {
        await this.step();
        await this.pause(this.role === "uploader" ? 150 : 250);
      } catch (error) {
        if (error instanceof Stopped) return;
        // An outage: try again shortly (what a client with retries does).
        await Bun.sleep(300);
      }
    }
  }
}

/** `start()` runs the clients until `stop()`; `outcomes` keeps every answer; `between` counts a window's. */
export class Load {
  running = false;
  readonly outcomes: Outcome[] = [];
  private readonly clients: LoadClient[] = [];
  private loops: Promise<void>[] = [];

  constructor(clients: { name: string; role: Role; transport: Transport }[], speech: Uint8Array) {
    this.clients = clients.map((c) => new LoadClient(c.name, c.role, c.transport, speech, this));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = this.clients.map((client) => client.run());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** The tasks the clients were told they created (201 or 200 with an id). */
  get created(): number[] {
    return this.clients.flatMap((client) => client.tasks);
  }

  /** Requests sent in [from, to): how many, how many answered 5xx (and by which step, with the statuses), how many got no answer. */
  between(from: number, to: number): { requests: number; fivexx: number; failed: number; fivexxBy: Record<string, number> } {
    const sent = this.outcomes.filter((o) => o.sentAt >= from && o.sentAt < to);
    const fivexxBy: Record<string, number> = {};
    for (const o of sent) if (o.status !== "error" && o.status >= 500) fivexxBy[`${o.what} ${o.status}`] = (fivexxBy[`${o.what} ${o.status}`] ?? 0) + 1;
    return {
      requests: sent.length,
      fivexx: Object.values(fivexxBy).reduce((a, b) => a + b, 0),
      failed: sent.filter((o) => o.status === "error").length,
      fivexxBy,
    };
  }
}
