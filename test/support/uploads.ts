import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestApp } from "./test-app.ts";

/** Upload helpers for the in-process app: sign, sign-part, PUT a part, complete. */

export type Session = { path: string; upload_id: string; part_size: number; part_count: number; expires_at: string };
export type User = { token: string; id: number };

export async function sign(app: TestApp, user: User, body: Record<string, unknown>): Promise<Session> {
  const response = await app.request("POST", "/api/uploads/sign", { token: user.token, json: body });
  if (response.status !== 200) throw new Error(`sign failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Session;
}

export async function signPart(app: TestApp, user: User, session: Session, partNumber: number): Promise<{ url: string; headers: Record<string, string> }> {
  const response = await app.request("POST", "/api/uploads/sign-part", {
    token: user.token,
    json: { path: session.path, upload_id: session.upload_id, part_number: partNumber },
  });
  if (response.status !== 200) throw new Error(`sign-part failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { url: string; headers: Record<string, string> };
}

/** PUTs bytes to a signed URL exactly as given: a URL naming another address than the app's is not rewritten to reach it. */
export function putSigned(app: TestApp, url: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch(url, { method: "PUT", body: bytes, headers: { "content-length": String(bytes.byteLength), ...headers } });
}

/** Signs and PUTs every part of `bytes`. */
export async function uploadParts(app: TestApp, user: User, session: Session, bytes: Uint8Array): Promise<void> {
  for (let n = 1; n <= session.part_count; n++) {
    const { url, headers } = await signPart(app, user, session, n);
    const response = await putSigned(app, url, bytes.subarray((n - 1) * session.part_size, n * session.part_size), headers);
    if (response.status !== 200) throw new Error(`PUT part ${n} failed: ${response.status} ${await response.text()}`);
  }
}

export function completeBody(session: Session, file: string, contentType: string, size: number, extra: Record<string, unknown> = {}) {
  return { path: session.path, upload_id: session.upload_id, original_name: file, content_type: contentType, size, ...extra };
}

export function complete(app: TestApp, user: User, body: Record<string, unknown>): Promise<Response> {
  return app.request("POST", "/api/uploads/complete", { token: user.token, json: body });
}

/** Deterministic bytes (not media): for sizes and parts. */
export function bytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed * 2654435761;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A real audio file made by ffmpeg (a sine tone), never committed: `format` is mp3, wav, ogg... */
export async function toneFile(format: string, seconds = 2): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), "scribe-tone-"));
  try {
    const out = join(dir, `tone.${format}`);
    const child = Bun.spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`, out], {
      stdout: "ignore",
      stderr: "pipe",
    });
    if ((await child.exited) !== 0) throw new Error(`ffmpeg failed: ${await new Response(child.stderr).text()}`);
    return new Uint8Array(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
