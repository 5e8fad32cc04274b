/**
 * The API's JSON and text answers of 1 KiB or more go out compressed as the client accepts (gzip, else br), and the
 * same answer decompressed is byte for byte the uncompressed one; small answers, downloads (exports) and clients
 * that take no encoding get the answer as it is. Every compressible answer varies on Accept-Encoding, and the ETag
 * that If-Match compares is the same in every encoding.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { AnyElysia } from "elysia";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { freePort } from "../support/service-process.ts";
import { createTask, waitForStatus, type User } from "../support/tasks.ts";

let app: TestApp;
let user: User;
let taskId = 0;
const segments = Array.from({ length: 60 }, (_, i) => ({ start: i * 1000, end: i * 1000 + 900, text: `Segment ${i} of the meeting's notes.` }));

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
  user = await app.register();
  taskId = await createTask(app, user, { name: "Long", segments });
  await waitForStatus(app, user, taskId, "finished");
});
afterAll(async () => {
  await app.close();
});

const get = (path: string, acceptEncoding?: string) =>
  app.request("GET", path, { token: user.token, headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } });

const decoded = (encoding: string | null, bytes: Uint8Array): string => {
  if (encoding === "br") return new TextDecoder().decode(brotliDecompressSync(bytes));
  if (encoding === "gzip") return new TextDecoder().decode(gunzipSync(bytes));
  return new TextDecoder().decode(bytes);
};

describe("compressed answers", () => {
  test("a task's detail is sent in the encoding the client prefers, and decodes to the same answer", async () => {
    const plain = await get(`/api/tasks/${taskId}`);
    const plainText = await plain.text();
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toContain("Accept-Encoding");
    expect(plainText.length).toBeGreaterThan(1024);
    for (const [accepted, expected] of [
      ["br", "br"],
      ["gzip", "gzip"],
      ["gzip, deflate, br", "gzip"],
      ["gzip;q=0, br", "br"],
      ["br;q=0, gzip", "gzip"],
      ["identity", null],
      ["deflate", null],
      // Hostile or broken headers: a q-value that is not a number refuses, junk of any length is no encoding.
      ["gzip;q=abc, br;q=", null],
      [`${"x-junk;q=1, ".repeat(600)}gzip`, "gzip"],
      ["x".repeat(8000), null],
    ] as const) {
      const response = await get(`/api/tasks/${taskId}`, accepted);
      expect({ accepted, encoding: response.headers.get("content-encoding") }).toEqual({ accepted, encoding: expected });
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (expected !== null) {
        expect(Number(response.headers.get("content-length"))).toBe(bytes.byteLength);
        expect(bytes.byteLength).toBeLessThan(plainText.length / 3);
      }
      expect(decoded(expected, bytes)).toBe(plainText);
      expect(response.headers.get("vary")).toContain("Accept-Encoding");
      expect(response.headers.get("etag")).toBe(plain.headers.get("etag"));
    }
  });

  test("a kept answer, compressed once and sent again, follows its task: an edit is in the next compressed answer", async () => {
    const compressedName = async (encoding: "gzip" | "br") => {
      const response = await get(`/api/tasks/${taskId}`, encoding);
      expect(response.headers.get("content-encoding")).toBe(encoding);
      return (JSON.parse(decoded(encoding, new Uint8Array(await response.arrayBuffer()))) as { name: string }).name;
    };
    for (const encoding of ["gzip", "br"] as const) expect([await compressedName(encoding), await compressedName(encoding)]).toEqual(["Long", "Long"]);
    const renamed = await app.request("PATCH", `/api/tasks/${taskId}`, { token: user.token, json: { name: "Renamed" } });
    expect(renamed.status).toBe(200);
    for (const encoding of ["gzip", "br"] as const) expect(await compressedName(encoding)).toBe("Renamed");
    // HEAD: the kept answer's headers, no body to compress.
    const head = await app.request("HEAD", `/api/tasks/${taskId}`, { token: user.token, headers: { "accept-encoding": "gzip" } });
    expect(head.headers.get("content-encoding")).toBeNull();
    expect(head.headers.get("vary")).toBeNull();
    await app.request("PATCH", `/api/tasks/${taskId}`, { token: user.token, json: { name: "Long" } });
  });

  test("a kept answer goes out as it was made: Vary once, nosniff, the ETag (a copy on the way would say Vary twice)", async () => {
    // The first read makes the answer, the next ones are kept; a hook that made Elysia take every route as using
    // cookies once had each kept answer copied, and the copy was then finished a second time.
    for (let read = 0; read < 3; read++) {
      for (const accepted of [undefined, "gzip"]) {
        const response = await get(`/api/tasks/${taskId}`, accepted);
        expect({ read, accepted, vary: response.headers.get("vary"), nosniff: response.headers.get("x-content-type-options") }).toEqual({
          read,
          accepted,
          vary: "Accept-Encoding",
          nosniff: "nosniff",
        });
        expect(response.headers.get("etag")).toMatch(/^W?\/?"/);
      }
    }
  });

  test("an answer under 1 KiB goes out as it is", async () => {
    for (const path of ["/api/user", "/api/tasks"]) {
      const response = await get(path, "gzip, br");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect({ path, encoding: response.headers.get("content-encoding"), small: bytes.byteLength < 1024 }).toEqual({ path, encoding: null, small: true });
      expect(response.headers.get("vary")).toContain("Accept-Encoding");
    }
  });

  test("a download (an export) goes out as it is, whatever the client accepts", async () => {
    const download = await get(`/api/tasks/${taskId}/download/txt`, "gzip, br");
    expect(download.status).toBe(200);
    expect(download.headers.get("content-encoding")).toBeNull();
    expect(await download.text()).toContain("Segment 59");
  });

  test("over a real socket, a client that decodes (fetch) reads the same JSON it would uncompressed", async () => {
    const port = freePort();
    const server: AnyElysia = app.service.app!.listen({ hostname: "127.0.0.1", port });
    try {
      const url = `http://127.0.0.1:${port}/api/tasks/${taskId}`;
      const auth = { authorization: `Bearer ${user.token}` };
      const compressed = await fetch(url, { headers: { ...auth, "accept-encoding": "br" } });
      const identity = await fetch(url, { headers: { ...auth, "accept-encoding": "identity" } });
      expect(compressed.headers.get("content-encoding")).toBe("br");
      expect(await compressed.json()).toEqual(await identity.json());
    } finally {
      await server.stop();
    }
  });

  test("with COMPRESSION=off (a reverse proxy compresses), every answer goes out as it is, whatever the client accepts", async () => {
    const uncompressed = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", COMPRESSION: "off" });
    try {
      const owner = await uncompressed.register();
      const id = await createTask(uncompressed, owner, { name: "Long", segments });
      // The first read makes the answer, the second is kept: both as they are, varying on nothing.
      for (let read = 0; read < 2; read++) {
        const detail = await uncompressed.request("GET", `/api/tasks/${id}`, { token: owner.token, headers: { "accept-encoding": "gzip, br" } });
        expect({ read, encoding: detail.headers.get("content-encoding"), vary: detail.headers.get("vary") }).toEqual({ read, encoding: null, vary: null });
        expect((await detail.text()).length).toBeGreaterThan(1024);
      }
    } finally {
      await uncompressed.close();
    }
  });
});
