/**
 * Serialized answers kept under the version of what they were read from (a read model's log position):
 * an entry is served only while the version asked for is still the one it was stored with. Bounded in
 * bytes; the least recently used entries go first.
 */
export class VersionedCache {
  private readonly entries = new Map<string, { version: number; body: string }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, version: number): string | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.version !== version) {
      this.bytes -= entry.body.length;
      return undefined;
    }
    this.entries.set(key, entry); // now the most recently used
    return entry.body;
  }

  set(key: string, version: number, body: string): void {
    if (body.length > this.maxBytes / 16) return; // one huge answer must not flush everything else
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.body.length;
    }
    this.entries.set(key, { version, body });
    this.bytes += body.length;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.body.length;
    }
  }
}

/** A JSON answer from an already serialized body. */
export function jsonResponse(body: string): Response {
  return new Response(body, { headers: { "content-type": "application/json;charset=utf-8" } }); // as Elysia sends objects
}
