/**
 * Hostile clients of GET /v1/realtime, each returning what it saw, for the test that runs them all at once beside a
 * well-behaved session (realtime-hostile.int.test.ts) and the bench that measures /api/health meanwhile
 * (bench/live-hostile.bench.ts). Each one is what a careless or malicious client does: no credentials, a free plan's
 * key, garbage frames, a 10 MB frame, audio at 20x real time, audio past the session's maximum length, and never reading.
 */
import { connect as tcpConnect } from "node:net";
import { RealtimeClient, type ScribeServerEvent } from "./realtime-client.ts";

/** What a hostile client saw: the error codes it was sent, how its socket closed (null: still open), and anything more. */
export type Seen = { errors: string[]; closeCode: number | null; events: string[] };

const seen = (client: RealtimeClient, closeCode: number | null): Seen => ({
  errors: client.errors().map((event) => event.error.code ?? ""),
  closeCode,
  events: client.events.map((event: ScribeServerEvent) => event.type),
});

/** 24 kHz silence. */
export const silence = (seconds: number) => new Int16Array(Math.round(24_000 * seconds));

/** Connects with a key (or none) and waits for the first event. */
async function opened(url: string, key: string | null): Promise<RealtimeClient> {
  const client = await RealtimeClient.connect(url, key === null ? {} : { headers: { authorization: `Bearer ${key}` } });
  await Promise.race([client.next("session.created"), client.next("error")]);
  return client;
}

/** No credentials at all, then a free plan's key: each refused before any audio, with an error and 1008. */
export async function refused(url: string, key: string | null): Promise<Seen> {
  const client = await opened(url, key);
  return seen(client, (await client.closed).code);
}

/** Frames no event is made of; the session must answer each with an error and go on (cleared answers the last). */
export async function garbage(url: string, key: string): Promise<Seen> {
  const client = await opened(url, key);
  const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  const frames: (string | Uint8Array)[] = [
    "not json",
    new Uint8Array([0xff, 0xfe, 0x00, 0x01]),
    '{"type":"no.such.event"}',
    deep,
    '{"type":"input_audio_buffer.clear","__proto__":{"polluted":true}}',
    '{"type":"input_audio_buffer.append","audio":"!!!not base64!!!"}',
    '{"type":"session.update","session":{"type":"transcription","audio":{"input":{"format":{"type":"audio/pcmu"}}}}}',
  ];
  for (const frame of frames) client.sendRaw(frame);
  client.send({ type: "input_audio_buffer.clear" });
  await client.next("input_audio_buffer.cleared");
  client.close();
  return seen(client, null);
}

/** One 10 MB frame: an error that says it is too large, and the session goes on. */
export async function hugeFrame(url: string, key: string): Promise<Seen> {
  const client = await opened(url, key);
  client.sendRaw(`{"type":"input_audio_buffer.append","audio":"${"A".repeat(10 * 1024 * 1024)}"}`);
  client.send({ type: "input_audio_buffer.clear" });
  await client.next("input_audio_buffer.cleared", 1, 30_000);
  client.close();
  return seen(client, null);
}

/** 20 s of audio in about a second: what runs beyond twice real time and the burst is refused, the session goes on. */
export async function tooFast(url: string, key: string): Promise<Seen> {
  const client = await opened(url, key);
  for (let i = 0; i < 40; i++) {
    client.append(silence(0.5));
    await Bun.sleep(25);
  }
  client.send({ type: "session.close" });
  await client.next("session.closed", 1, 30_000);
  return seen(client, (await client.closed).code);
}

/** More audio than the session's maximum length, at twice real time: the session ends with an error and becomes a task. */
export async function pastMaxLength(url: string, key: string, maxSeconds: number): Promise<Seen & { taskId: number | null }> {
  const client = await opened(url, key);
  for (let second = 0; second <= maxSeconds && client.socket.readyState === WebSocket.OPEN; second++) {
    client.append(silence(1));
    await Bun.sleep(500);
  }
  const closed = await client.next("session.closed", 1, 30_000);
  return { ...seen(client, (await client.closed).code), taskId: closed.task_id };
}

/** A client frame (masked, as clients must send them) holding `text`. */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((byte, i) => byte ^ mask[i % 4]!)]);
}

/**
 * Upgrades over raw TCP, then never reads while sending bad frames, each of which earns an error that waits to be sent.
 * Resolves whether the session ended and gave its place back: with one session per account, whether the key may open
 * another.
 */
export async function neverReads(url: string, key: string): Promise<{ placeFreed: boolean }> {
  const socket = tcpConnect({ host: "127.0.0.1", port: Number(new URL(url).port) });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    "GET /v1/realtime?intent=transcription HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Key: ${Buffer.from("0123456789abcdef").toString("base64")}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${key}\r\n\r\n`,
  );
  await new Promise<void>((resolve) => socket.once("data", () => resolve()));
  socket.pause();
  const frames = Buffer.concat(Array.from({ length: 2500 }, () => maskedTextFrame("x")));
  for (let i = 0; i < 40 && !socket.destroyed; i++) {
    socket.write(frames);
    await Bun.sleep(5);
  }
  let placeFreed = false;
  for (let i = 0; i < 100 && !placeFreed; i++) {
    const next = await opened(url, key);
    placeFreed = next.events[0]?.type === "session.created";
    next.close();
    if (!placeFreed) await Bun.sleep(100);
  }
  socket.destroy();
  return { placeFreed };
}
