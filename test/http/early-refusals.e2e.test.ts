import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

// A refusal sent before the body is read whole (413, 422) reaches the client, over a raw socket, however the
// client goes on: it stops and waits, it sends slowly, or it keeps sending after the answer. Never a reset.
// See `refuseUnread` in src/http/bounded-body-parser.ts for why such an answer never says `Connection: close`.

let service: RunningService;
let token: string;
beforeAll(async () => {
  service = await startServiceProcess({ ...manyRequestsPerToken });
  const email = `early-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const registered = await fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Early", email, password: "password123", password_confirmation: "password123" }),
  });
  token = ((await registered.json()) as { token: string }).token;
});
afterAll(() => service.stop());

type Sending = {
  /** Body bytes the client sends, repeated from `source`; `declared` is its Content-Length (null: chunked). */
  total: number;
  declared: number | null;
  source: Uint8Array;
  /** Bytes per write, and the pause after each. */
  piece: number;
  pauseMs: number;
  /** Stop at this many bytes and wait; or keep sending after the answer has come. */
  stopAt?: number;
  keepSending?: boolean;
};
type Outcome = { status: number; headers: string; body: string; whole: boolean; errors: string[]; sentBeforeAnswer: number; sent: number };

/** One request over its own TCP connection, written as `sending` says, read until the answer is whole or the socket closes. */
function rawRequest(path: string, sending: Sending): Promise<Outcome> {
  const url = new URL(service.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const errors: string[] = [];
    let received = Buffer.alloc(0);
    let sent = 0;
    let sentBeforeAnswer = -1;
    let closed = false;
    const answer = () => {
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const headers = text.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(headers)?.[1] ?? Number.NaN);
      const body = received.subarray(end + 4);
      return { status: Number(headers.slice(9, 12)), headers, body: body.toString("utf8"), whole: body.byteLength >= length };
    };
    const finish = () => {
      if (closed) return;
      closed = true;
      const got = answer();
      socket.destroy();
      resolve({ status: got?.status ?? 0, headers: got?.headers ?? "", body: got?.body ?? "", whole: got?.whole ?? false, errors, sentBeforeAnswer, sent });
    };
    socket.on("connect", async () => {
      const length = sending.declared === null ? "transfer-encoding: chunked" : `content-length: ${sending.declared}`;
      socket.write(`POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\n${length}\r\n\r\n`);
      while (sent < sending.total && !closed && !errors.length) {
        if (sending.stopAt !== undefined && sent >= sending.stopAt) return;
        if (sentBeforeAnswer >= 0 && !sending.keepSending) return;
        const at = sent % sending.source.byteLength;
        const piece = sending.source.subarray(at, Math.min(at + sending.piece, sending.source.byteLength, at + sending.total - sent));
        const framed = sending.declared === null ? Buffer.concat([Buffer.from(`${piece.byteLength.toString(16)}\r\n`), piece, Buffer.from("\r\n")]) : piece;
        if (!socket.write(framed)) await new Promise((drained) => socket.once("drain", drained));
        sent += piece.byteLength;
        if (sending.pauseMs) await Bun.sleep(sending.pauseMs);
      }
      if (sending.declared === null && !closed && !errors.length) socket.write("0\r\n\r\n");
      if (answer()?.whole) finish();
    });
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data]);
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      // A client that keeps sending reads on until it has sent all; the others stop at the whole answer.
      if (answer()?.whole && (!sending.keepSending || sent >= sending.total)) finish();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    socket.on("close", finish);
    setTimeout(finish, 20_000);
  });
}

const encoder = new TextEncoder();
/** 12 MB: one object of a million members, refused (422) after its first 1,001. */
const millionMembers = encoder.encode(
  `{"disk":"objstore","name":"x","path":"p"${Array.from({ length: 1_000_000 }, (_, i) => `,"k${String(i).padStart(6, "0")}":1`).join("")}}`,
);
/** JSON that breaks no shape rule however long it is: a string of spaces inside an array. */
const spaces = encoder.encode(`["${" ".repeat(1024 * 1024)}`);

function expectRefused(outcome: Outcome, status: number, message: string) {
  expect({ status: outcome.status, whole: outcome.whole, errors: outcome.errors }).toEqual({ status, whole: true, errors: [] });
  expect((JSON.parse(outcome.body) as { message: string }).message).toBe(message);
  expect(outcome.headers.toLowerCase()).not.toContain("connection: close");
}
const members = "The request body has an object of more than 1000 members.";
const tooLarge = (limit: number) => `The request body is too large: this endpoint takes at most ${limit} bytes.`;

describe("a refusal before the body is read whole reaches the client", () => {
  test("a big Content-Length, part of the body sent slowly, then a wait: 422 at once", async () => {
    const outcome = await rawRequest("/api/tasks", {
      total: millionMembers.byteLength,
      declared: millionMembers.byteLength,
      source: millionMembers,
      piece: 4096,
      pauseMs: 5,
      stopAt: 64 * 1024,
    });
    expectRefused(outcome, 422, members);
    expect(outcome.sentBeforeAnswer).toBeLessThan(64 * 1024 + 1);
  });

  test("the same chunked", async () => {
    const outcome = await rawRequest("/api/tasks", {
      total: millionMembers.byteLength,
      declared: null,
      source: millionMembers,
      piece: 4096,
      pauseMs: 5,
      stopAt: 64 * 1024,
    });
    expectRefused(outcome, 422, members);
  });

  test("a client that keeps sending its whole body after the answer still has the answer, whole", async () => {
    for (const declared of [millionMembers.byteLength, null]) {
      const outcome = await rawRequest("/api/tasks", {
        total: millionMembers.byteLength,
        declared,
        source: millionMembers,
        piece: 64 * 1024,
        pauseMs: 0,
        keepSending: true,
      });
      expectRefused(outcome, 422, members);
      expect(outcome.sent).toBe(millionMembers.byteLength);
    }
  });

  test("413 while a chunked body streams past its limit, the client sending on (12 MB to a 66 KB route)", async () => {
    const outcome = await rawRequest("/api/folders", { total: 12_000_000, declared: null, source: spaces, piece: 64 * 1024, pauseMs: 0, keepSending: true });
    // A folder's body takes no more than its schema can hold (body-plans.ts's largestBodyOf), not the ordinary 1 MiB.
    expectRefused(outcome, 413, tooLarge(66_136));
    expect(outcome.sent).toBe(12_000_000);
  });

  test("413 by Content-Length, before a byte is read, the client sending on (40 MB to a 24 MiB route)", async () => {
    const outcome = await rawRequest("/api/tasks", {
      total: 40_000_000,
      declared: 40_000_000,
      source: spaces,
      piece: 64 * 1024,
      pauseMs: 0,
      keepSending: true,
    });
    expect({ status: outcome.status, whole: outcome.whole, errors: outcome.errors }).toEqual({ status: 413, whole: true, errors: [] });
    expect((JSON.parse(outcome.body) as { message: string }).message).toBe(tooLarge(24 * 1024 * 1024));
    expect(outcome.sent).toBe(40_000_000);
  });

  test("the service answers the next request as before", async () => {
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
  });
});

describe("a large body read over a socket", () => {
  test("reaches its parsing thread as bytes whole: characters split between 64 KiB chunks come through intact", async () => {
    // 3- and 4-byte characters, so that chunk boundaries fall inside them; well over the 1 MiB that sends a body to the thread.
    const text = (i: number) => `${i} Grüße, 日本語の文字, emoji 😀 and naïve café`;
    const segments = Array.from({ length: 30_000 }, (_, i) => ({ start: i * 1000, end: i * 1000 + 900, text: text(i) }));
    const body = new TextEncoder().encode(JSON.stringify({ disk: "objstore", path: "talk.mp3", name: "Ünïcödé", segments }));
    expect(body.byteLength).toBeGreaterThan(2 * 1024 * 1024);
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${service.url}/api/tasks`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const shown = (await (await fetch(`${service.url}/api/tasks/${id}`, { headers: auth })).json()) as { name: string; segments: { text: string }[] };
    expect(shown.name).toBe("Ünïcödé");
    expect(shown.segments).toHaveLength(30_000);
    expect(shown.segments.every((segment, i) => segment.text === text(i))).toBe(true);
  });
});
