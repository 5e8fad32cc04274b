/** The metrics' wiring in one process: what the transcription pipeline and the event store report reaches /metrics. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { reportTimings } from "../../src/transcription/timings.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
});
afterAll(async () => {
  await app?.close();
});

const metrics = async () => (await app.request("GET", "/metrics")).text();

test("a finished transcription's processing time over its media time lands in the realtime-factor histogram", async () => {
  const stages = { fetch: 0, probe: 0, decode: 0, plan: 0, recognize: 0, segment: 0, diarize: 0, summarize: 0, finish: 0 };
  reportTimings({ taskId: 1, engine: "sphinx", mediaMs: 10_000, chunks: 1, stages, totalMs: 2_500 });
  reportTimings({ taskId: 2, engine: "sphinx", mediaMs: 0, chunks: 0, stages, totalMs: 10 }); // no media: no factor
  const text = await metrics();
  expect(text).toContain("scribe_transcription_realtime_factor_count 1");
  expect(text).toContain("scribe_transcription_realtime_factor_sum 0.25");
  expect(text).toContain('scribe_transcription_realtime_factor_bucket{le="0.3"} 1');
  expect(text).toContain('scribe_transcription_realtime_factor_bucket{le="0.2"} 0');
});

test("every batch appended counts its events by type; a refused append counts nothing", async () => {
  const before = await metrics();
  const count = (text: string) => Number(/scribe_events_appended_total\{type="UserRegistered"\} (\d+)/.exec(text)?.[1] ?? 0);
  await app.register();
  await app.register();
  const registeredEmail = (await app.register()).email;
  const again = await app.request("POST", "/api/register", {
    json: { name: "Again", email: registeredEmail, password: "password123", password_confirmation: "password123" },
  });
  expect(again.status).toBe(422);
  expect(count(await metrics()) - count(before)).toBe(3);
});
