import { Webhook } from "standardwebhooks";

/** One request a receiver got, as it came: headers, the exact body, and when. */
export type Received = { headers: Record<string, string>; body: string; at: number };

export type WebhookReceiver = {
  url: string;
  received: Received[];
  /**
   * What the next requests are answered with (a status each, in order); then `otherwise`. With `onlyPath`, only
   * requests to that path take from the list: deliveries still on their way to other tests' endpoints do not.
   */
  answer(statuses: number[], otherwise?: number, onlyPath?: string): void;
  /** Resolves with the first request (from `from` on) that `match` accepts. */
  next(match?: (r: Received) => boolean, timeoutMs?: number, from?: number): Promise<Received>;
  stop(): void;
};

/** A Bun.serve receiver on loopback that records every request and answers as told (200 by default). */
export function startWebhookReceiver(path = "/hooks"): WebhookReceiver {
  const received: Received[] = [];
  let queue: number[] = [];
  let otherwise = 200;
  let queuePath: string | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => {
        headers[key] = value;
      });
      received.push({ headers, body: await request.text(), at: Date.now() });
      if (queuePath !== undefined && new URL(request.url).pathname !== queuePath) return new Response(null, { status: 200 });
      return new Response(null, { status: queue.shift() ?? otherwise });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    received,
    answer(statuses, fallback = 200, onlyPath) {
      queue = [...statuses];
      otherwise = fallback;
      queuePath = onlyPath;
    },
    async next(match = () => true, timeoutMs = 15_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.slice(from).find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching webhook within ${timeoutMs} ms; got ${received.map((r) => r.body.slice(0, 80)).join(" | ")}`);
        await Bun.sleep(10);
      }
    },
    stop: () => server.stop(true),
  };
}

/** Verifies a request with the standardwebhooks package (the reference implementation) and returns its payload. */
export function verified(secret: string, request: Received): { type: string; timestamp: string; data: Record<string, any> } {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: Record<string, any> };
}

export const typeOf = (request: Received) => (JSON.parse(request.body) as { type: string }).type;
