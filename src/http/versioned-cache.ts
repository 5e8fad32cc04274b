import type { Context } from "elysia";
import { answerFrom, knownJsonAnswer } from "./known-answers.ts";

/**
 * Serialized answers kept under the version of what they were read from (a read model's log position):
 * an entry is served only while the version asked for is still the one it was stored with. Bounded in
 * bytes; the least recently used entries go first. Entries are UTF-8 bytes, not strings: the server
 * would transcode a string body on every send (about 10 µs for a page of 25 tasks). Each is kept as a finished
 * answer (known-answers.ts) that a request's answer is cloned from (`jsonResponse`).
 */
export class VersionedCache {
  private readonly entries = new Map<string, { version: number; body: Uint8Array; answer: Response }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): Response | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.version !== version) {
      this.bytes -= entry.body.length;
      return undefined;
    }
    this.entries.set(key, entry); // now the most recently used
    return entry.answer;
  }

  set(key: string, version: number, body: Uint8Array): void {
    if (body.length > this.maxBytes / 16) return; // one huge answer must not flush everything else
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.body.length;
    }
    this.entries.set(key, { version, body, answer: knownJsonAnswer(body) });
    this.bytes += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.body.length;
    }
  }
}

export type ResponseSet = Pick<Context["set"], "headers">;

/**
 * A request's answer from a kept one, carrying the headers the request's hooks set (the rate limit's, the ETag),
 * finished at once (known-answers.ts). The headers move into the Response: while `set.headers` holds any, Elysia
 * would copy a returned Response whole, body stream included, just to merge them.
 */
export function jsonResponse(kept: Response, set: ResponseSet): Response {
  const answer = answerFrom(kept);
  const headers = answer.headers;
  for (const name in set.headers) {
    headers.set(name, String(set.headers[name]));
    delete set.headers[name];
  }
  return answer;
}
