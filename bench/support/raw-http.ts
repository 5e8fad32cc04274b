import type { Socket } from "bun";

/** A body sent as it is, or `total` bytes streamed as `chunk` repeated (never held whole). */
export type RawBody = Uint8Array | { stream: Uint8Array; total: number };

export type RawAnswer = {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** From the first byte written to the whole answer read. */
  ms: number;
  /** From the first byte written to the first byte of the answer. */
  firstByteMs: number;
  /** When the last body byte was handed to the socket; null when the answer came first and the rest was never sent. */
  sentAllMs: number | null;
  /** Body bytes handed to the socket by the time the answer's first byte arrived. */
  bodyBytesBeforeAnswer: number;
  bodyBytes: number;
  /** A socket error, or the connection closing before a whole answer (status 0 then). */
  error: string | null;
};

const piece = 256 * 1024;

/**
 * One HTTP/1.1 request over its own TCP connection, timed from the first byte written. The body goes out
 * in 256 KiB writes that wait for the socket to drain, and stops as soon as the answer begins: a server
 * that refuses a body by its Content-Length answers before it is sent, and that is what is timed.
 * `fetch` cannot show this (it sends the whole body before it reads an answer).
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: RawBody | null,
  options: { chunked?: boolean; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const total = body === null ? 0 : body instanceof Uint8Array ? body.byteLength : body.total;
  const head =
    `${method} ${path} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: close\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("") +
    (body === null ? "" : options.chunked ? "transfer-encoding: chunked\r\n" : `content-length: ${total}\r\n`) +
    "\r\n";
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let t0 = 0;
    let firstByteAt = 0;
    let sentAllAt: number | null = null;
    let sentBody = 0;
    let bodyBytesBeforeAnswer = 0;
    let done = false;
    let writeError: string | null = null;
    let socket: Socket<undefined> | null = null;
    let drained: (() => void) | null = null;
    const timer = setTimeout(() => finish(`timed out after ${options.timeoutMs ?? 30_000} ms`), options.timeoutMs ?? 30_000);

    const parsed = () => {
      const all = Buffer.concat(received);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const lines = all.subarray(0, end).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
      const hdrs: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) hdrs[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = all.subarray(end + 4);
      if (hdrs["content-length"] !== undefined) {
        const length = Number(hdrs["content-length"]);
        return { status, headers: hdrs, body: rest.subarray(0, length).toString("utf8"), complete: rest.byteLength >= length };
      }
      if ((hdrs["transfer-encoding"] ?? "").includes("chunked")) {
        const parts: Buffer[] = [];
        let at = 0;
        for (;;) {
          const lineEnd = rest.indexOf("\r\n", at);
          if (lineEnd < 0) return { status, headers: hdrs, body: Buffer.concat(parts).toString("utf8"), complete: false };
          const size = parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16);
          if (size === 0) return { status, headers: hdrs, body: Buffer.concat(parts).toString("utf8"), complete: true };
          if (rest.byteLength < lineEnd + 2 + size + 2) return { status, headers: hdrs, body: Buffer.concat(parts).toString("utf8"), complete: false };
          parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
          at = lineEnd + 2 + size + 2;
        }
      }
      return { status, headers: hdrs, body: rest.toString("utf8"), complete: false }; // ends with the connection
    };

    function finish(why: string | null) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const now = performance.now();
      const answer = parsed();
      // An answer that ends with the connection (no length) is whole when the connection closes.
      const whole = answer !== null && answer.status > 0 && (answer.complete || why === "closed");
      socket?.end();
      drained?.();
      resolve({
        status: answer?.status ?? 0,
        headers: answer?.headers ?? {},
        body: answer?.body ?? "",
        ms: now - t0,
        firstByteMs: firstByteAt ? firstByteAt - t0 : now - t0,
        sentAllMs: sentAllAt === null ? null : sentAllAt - t0,
        bodyBytesBeforeAnswer: firstByteAt ? bodyBytesBeforeAnswer : sentBody,
        bodyBytes: total,
        error: whole ? null : [why ?? "incomplete answer", writeError].filter(Boolean).join("; "),
      });
    }

    /** Writes all of `data`, waiting for the socket to drain when its buffer is full. */
    async function write(data: Uint8Array): Promise<void> {
      let at = 0;
      while (at < data.byteLength && !done && !firstByteAt && !writeError) {
        const n = socket!.write(data.subarray(at));
        if (n < 0) {
          writeError = "write failed";
          return;
        }
        at += n;
        if (at < data.byteLength) await new Promise<void>((r) => (drained = r));
      }
    }

    const frame = (data: Uint8Array) =>
      options.chunked ? Buffer.concat([Buffer.from(`${data.byteLength.toString(16)}\r\n`), data, Buffer.from("\r\n")]) : data;

    async function send() {
      t0 = performance.now();
      await write(encoder.encode(head));
      if (body === null) return;
      const more = () => !done && !firstByteAt && !writeError;
      if (body instanceof Uint8Array) {
        for (let at = 0; at < total && more(); at += piece) {
          const part = body.subarray(at, Math.min(total, at + piece));
          await write(frame(part));
          sentBody += part.byteLength;
        }
      } else {
        while (sentBody < total && more()) {
          const part = body.stream.subarray(0, Math.min(body.stream.byteLength, total - sentBody));
          await write(frame(part));
          sentBody += part.byteLength;
        }
      }
      if (sentBody >= total && more()) {
        if (options.chunked) await write(encoder.encode("0\r\n\r\n"));
        sentAllAt = performance.now();
      }
    }

    Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: {
        open(s) {
          socket = s;
          s.setNoDelay(true);
          void send();
        },
        data(_s, data) {
          if (!firstByteAt) {
            firstByteAt = performance.now();
            bodyBytesBeforeAnswer = sentBody;
          }
          received.push(Buffer.from(data));
          if (parsed()?.complete) finish(null);
        },
        drain() {
          const r = drained;
          drained = null;
          r?.();
        },
        end() {
          finish("closed");
        },
        close() {
          finish("closed");
        },
        error(_s, error) {
          // The server may answer and close while the body is still going out (EPIPE, ECONNRESET): what was
          // read counts, and reading goes on until the connection closes.
          writeError = `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}`;
          drained?.();
        },
        connectError(_s, error) {
          finish(`connect: ${error.message}`);
        },
      },
    }).catch((error: Error) => finish(`connect: ${error.message}`));
  });
}

const encoder = new TextEncoder();
