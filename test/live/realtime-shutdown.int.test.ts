/**
 * A live session open when the service stops: it ends as any other end does (its open turn finished, its recording kept
 * as a task), told by an `error` event (`server_shutdown`), then `session.closed` with the task, then close 1001. Through
 * SIGTERM to the started service (which must then exit at once, not wait on the socket, and find the task with its audio
 * when started again on the same DATA_DIR), and through `Service.stop()` in process, where a connection asked for while
 * the service stops is refused with 1013.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess } from "../support/service-process.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { fliteAvailable, namedSentences, speakWithFlite } from "../support/named-speech.ts";
import { payingAccount, json } from "../openai-compat/openai-service.ts";
import { listen, RealtimeClient } from "./realtime-client.ts";

const ready = prerequisite(
  "flite, ffmpeg and PocketSphinx's library",
  fliteAvailable() && Bun.which("pocketsphinx_continuous") !== null,
  "apt-get install flite ffmpeg pocketsphinx pocketsphinx-en-us, or npm test",
);

let dir = "";
/** A spoken sentence, 16 kHz mono 16-bit: what the sessions send. */
let speech = new Int16Array(0);

beforeAll(async () => {
  if (!ready) return;
  dir = mkdtempSync(join(tmpdir(), "scribe-live-shutdown-"));
  const wav = new Uint8Array(await Bun.file(await speakWithFlite(namedSentences[1]!.text, "rms", dir, "speech")).arrayBuffer());
  // The samples follow the "data" chunk's header, wherever ffmpeg put it.
  const data = Buffer.from(wav).indexOf("data") + 8;
  speech = new Int16Array(wav.slice(data).buffer, 0, (wav.length - data) >> 1);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens a session at 16 kHz and sends the sentence in 100 ms appends at 4x real time, leaving its last turn open. */
async function speak(base: string, key: string): Promise<RealtimeClient> {
  const client = await RealtimeClient.connect(base, { headers: { authorization: `Bearer ${key}` } });
  await client.next("session.created");
  client.update({ type: "transcription", audio: { input: { format: { type: "audio/pcm", rate: 16000 as 24000 } } } });
  await client.next("session.updated");
  for (let offset = 0; offset < speech.length; offset += 1600) {
    client.append(speech.subarray(offset, offset + 1600));
    await Bun.sleep(25);
  }
  await client.next("input_audio_buffer.speech_started");
  return client;
}

/** What a session told its client as the service stopped: the notice, the finished turn, the task, and the close. */
async function expectShutdownEnd(client: RealtimeClient): Promise<number> {
  const closed = await client.next("session.closed", 1, 8000);
  const { code } = await client.closed;
  expect(code).toBe(1001);
  const [notice] = client.errors();
  expect(notice?.error).toMatchObject({ type: "server_error", code: "server_shutdown" });
  expect(notice?.error.message).toContain("shutting down");
  const types = client.events.map((event) => event.type);
  // The turn left open is finished: committed and completed, before the session closes.
  expect(types.lastIndexOf("input_audio_buffer.committed")).toBeGreaterThan(types.indexOf("error"));
  expect(types.lastIndexOf("conversation.item.input_audio_transcription.completed")).toBeLessThan(types.indexOf("session.closed"));
  expect(types.at(-1)).toBe("session.closed");
  const completed = client.events.flatMap((event) => (event.type === "conversation.item.input_audio_transcription.completed" ? [event.transcript] : []));
  expect(completed.join(" ").trim()).not.toBe("");
  expect(closed.task_id).toBeGreaterThan(0);
  return closed.task_id!;
}

describe.skipIf(!ready)("a live session when the service stops", () => {
  test("SIGTERM: the session ends as a task, the process exits at once, and the task is there with its audio after a restart", async () => {
    const dataDir = join(dir, "data");
    const first = await startServiceProcess({ ...scriptPace }, dataDir);
    try {
      const account = await payingAccount(first);
      const client = await speak(first.url.replace("http:", "ws:"), account.key);
      const signalled = performance.now();
      const exitCode = await first.stop("SIGTERM");
      const exitedMs = performance.now() - signalled;
      const taskId = await expectShutdownEnd(client);
      expect(exitCode).toBe(0);
      expect(exitedMs).toBeLessThan(4000);
      // One log line per session, at its end: who, how long, how many turns, why it ended, and the task it became.
      const logged = first
        .output()
        .split("\n")
        .filter((line) => line.includes('"live session ended"'));
      expect(logged).toHaveLength(1);
      expect(JSON.parse(logged[0]!)).toMatchObject({
        userId: expect.any(Number),
        end: "server_shutdown",
        taskId,
        turns: expect.any(Number),
        seconds: expect.any(Number),
      });

      const second = await startServiceProcess({ ...scriptPace }, dataDir);
      try {
        let task = await json(second, account.token, "GET", `/api/tasks/${taskId}`);
        // Finished by the first process's workers as it stopped, else by the second's.
        for (let i = 0; i < 50 && task.body?.status !== "finished"; i++) {
          await Bun.sleep(100);
          task = await json(second, account.token, "GET", `/api/tasks/${taskId}`);
        }
        expect(task.status).toBe(200);
        expect(task.body).toMatchObject({ status: "finished", duration: Math.ceil(speech.length / 16_000) });
        const audio = await fetch(`${second.url}/api/tasks/${taskId}/audio`, { headers: { authorization: `Bearer ${account.token}` } });
        expect(audio.status).toBe(200);
        expect(audio.headers.get("content-type")).toContain("audio/wav");
        // Every sample the session received, behind a WAV header.
        expect((await audio.arrayBuffer()).byteLength).toBeGreaterThanOrEqual(speech.byteLength);
      } finally {
        await second.stop();
      }
    } finally {
      if (first.process.exitCode === null) await first.stop("SIGKILL");
    }
  }, 30_000);

  describe("in process", () => {
    let app: TestApp;
    let server: { url: string; stop(): Promise<void> };

    beforeAll(async () => {
      app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
      server = listen(app);
    });
    afterAll(async () => {
      await server?.stop();
      await app?.close();
    });

    test("Service.stop() ends the open session as a task, and a connection asked for meanwhile is refused with 1013", async () => {
      const user = await app.register();
      await app.setPlan(user.id, "pro");
      const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "shutdown" } });
      const { key } = (await created.json()) as { key: string };
      const client = await speak(server.url, key);

      const stopped = app.service.stop();
      const late = await RealtimeClient.connect(server.url, { headers: { authorization: `Bearer ${key}` } });
      const refusal = await late.next("error");
      expect(refusal.error.code).toBe("server_shutdown");
      expect((await late.closed).code).toBe(1013);
      expect(late.events.map((event) => event.type)).toEqual(["error"]);

      await expectShutdownEnd(client);
      await stopped;
    }, 20_000);
  });
});
