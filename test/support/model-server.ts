/** A request the model server answered: its path and Range header, and the bytes of the body it sent. */
export type ServedRequest = { path: string; range: string | null; sent: number };

export type ModelServer = { url: string; requests: ServedRequest[]; stop(): void };

type Behaviour = {
  /** The first request gets half of the file and then a dropped connection. */
  cutFirst?: boolean;
  /** The first request gets half of the file and then nothing, the connection left open. */
  hangFirst?: boolean;
  /** Range headers are ignored: every answer is the whole file (a server or proxy without ranges). */
  ignoreRange?: boolean;
};

/**
 * A stand-in for Hugging Face: serves `files` (by file name) on 127.0.0.1 with HTTP Range support, 404 for anything else,
 * and records what each request asked for and was sent, so a test can check what a resumed pull fetched.
 */
export function startModelServer(files: Record<string, Uint8Array>, behaviour: Behaviour = {}): ModelServer {
  const requests: ServedRequest[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      const range = request.headers.get("range");
      const body = files[path.slice(1)];
      if (!body) {
        requests.push({ path, range, sent: 0 });
        return new Response("Entry not found", { status: 404 });
      }
      const start = Number(/^bytes=(\d+)-$/.exec(range ?? "")?.[1] ?? 0);
      if ((behaviour.cutFirst || behaviour.hangFirst) && requests.length === 0) {
        const half = body.subarray(0, Math.floor(body.length / 2));
        requests.push({ path, range, sent: half.length });
        const stream = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(half);
            await Bun.sleep(100);
            // Bun.serve drops the connection of a body that errors; without a reason it logs nothing.
            if (behaviour.cutFirst) controller.error();
          },
        });
        return new Response(stream, { status: 200 });
      }
      if (start === 0 || behaviour.ignoreRange) {
        requests.push({ path, range, sent: body.length });
        return new Response(body, { status: 200 });
      }
      if (start >= body.length) {
        requests.push({ path, range, sent: 0 });
        return new Response(null, { status: 416, headers: { "content-range": `bytes */${body.length}` } });
      }
      requests.push({ path, range, sent: body.length - start });
      return new Response(body.subarray(start), { status: 206, headers: { "content-range": `bytes ${start}-${body.length - 1}/${body.length}` } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => void server.stop(true) };
}

/** An address nothing listens on: a server started and stopped, so its port was free a moment ago. */
export function closedAddress(): string {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const url = `http://127.0.0.1:${server.port}`;
  server.stop(true);
  return url;
}
