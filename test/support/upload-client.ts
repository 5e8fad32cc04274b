/** A client of the real service over HTTP, doing what a browser does for an upload. */

export type Session = { path: string; upload_id: string; part_size: number; part_count: number; expires_at: string };

export class UploadClient {
  /**
   * `token`: a bearer token, or the headers that authenticate otherwise (a browser test's session cookie and
   * origin: `registerThroughForm(...).headers`).
   */
  constructor(
    readonly baseUrl: string,
    readonly token: string | Record<string, string>,
  ) {}

  static async register(baseUrl: string): Promise<UploadClient> {
    const email = `upload-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const response = await fetch(`${baseUrl}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Uploader", email, password: "password123", password_confirmation: "password123" }),
    });
    if (response.status !== 201) throw new Error(`register failed: ${response.status} ${await response.text()}`);
    return new UploadClient(baseUrl, ((await response.json()) as { token: string }).token);
  }

  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const auth = typeof this.token === "string" ? { authorization: `Bearer ${this.token}` } : this.token;
    const all: Record<string, string> = { ...auth, ...headers };
    if (body !== undefined) all["content-type"] = "application/json";
    return fetch(`${this.baseUrl}${path}`, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  async json<T>(method: string, path: string, body?: unknown, expected = 200): Promise<T> {
    const response = await this.call(method, path, body);
    if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  sign(file: string, contentType: string, size: number): Promise<Session> {
    return this.json("POST", "/api/uploads/sign", { file, content_type: contentType, size });
  }

  signPart(session: Session, partNumber: number): Promise<{ url: string; headers: Record<string, string> }> {
    return this.json("POST", "/api/uploads/sign-part", { path: session.path, upload_id: session.upload_id, part_number: partNumber });
  }

  /** PUTs one part to its signed URL (the API itself, or S3 directly). */
  async putPart(session: Session, partNumber: number, body: Uint8Array | Blob): Promise<Response> {
    const { url, headers } = await this.signPart(session, partNumber);
    return fetch(url, { method: "PUT", headers, body });
  }

  /** Every part, `concurrency` at a time, from a Blob (a file on disk is never read whole). */
  async putAll(session: Session, file: Blob, concurrency = 4): Promise<void> {
    let next = 1;
    const worker = async () => {
      while (next <= session.part_count) {
        const n = next++;
        const response = await this.putPart(session, n, file.slice((n - 1) * session.part_size, n * session.part_size));
        if (response.status !== 200) throw new Error(`PUT part ${n}: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, session.part_count) }, worker));
  }

  complete(session: Session, originalName: string, contentType: string, size: number, extra: Record<string, unknown> = {}): Promise<Response> {
    return this.call("POST", "/api/uploads/complete", {
      path: session.path,
      upload_id: session.upload_id,
      original_name: originalName,
      content_type: contentType,
      size,
      ...extra,
    });
  }
}
