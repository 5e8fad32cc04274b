// The largest event in the log after transcribing a long recording, embedded profile, default engine:
//   bun bench/event-size.bench.ts [seconds]        (default 3600: one hour; 30 in quick mode)
// The recording is the LibriSpeech clips of ../shared/testdata repeated (espeak-ng speech without them).
// Goal (issue 12): no event over 64 KiB; transcripts travel as blob references.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchApp, transcribe } from "./support/transcription.ts";
import { longRecording } from "./support/long-recording.ts";
import { eventBytes, maxEventBytes } from "../src/eventstore/event-size.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const seconds = numberArgument(0, 3600, 30);
const work = mkdtempSync(join(tmpdir(), "scribe-event-size-"));
const mp3 = join(work, "recording.mp3");
await longRecording(work, seconds, mp3);
const { app, user } = await benchApp();
try {
  const result = await transcribe(app, user, readFileSync(mp3), { name: "One hour", contentType: "audio/mpeg" });
  if (result.task.status !== "finished") throw new Error(`task ${result.task.status}: ${String(result.task.failure_reason)}`);
  const events: RecordedEvent[] = [];
  for (
    let page = await app.adapters.eventStore.readAll({ limit: 1000 });
    page.length > 0;
    page = await app.adapters.eventStore.readAll({ after: page.at(-1)!.position, limit: 1000 })
  )
    events.push(...page);
  const sized = events.map((e) => ({ type: e.type, bytes: eventBytes(e) })).sort((a, b) => b.bytes - a.bytes);
  const transcriptBytes = (result.task.segments as unknown[]).length;
  console.log(
    `recording: ${seconds} s; transcribed in ${(result.ms / 1000).toFixed(1)} s; ${transcriptBytes} segments (${(Buffer.byteLength(JSON.stringify(result.task.segments)) / 1024).toFixed(0)} KiB of JSON in the blob store)`,
  );
  console.log(
    `events in the log: ${events.length}; largest: ${sized
      .slice(0, 3)
      .map((s) => `${s.type} ${s.bytes} B`)
      .join(", ")}`,
  );
  figure("largest event in the log", sized[0]!.bytes, "B", { op: "<=", value: maxEventBytes });
  figure("the recording transcribed, create to finished", result.ms / 1000, "s");
} finally {
  await app.close();
  rmSync(work, { recursive: true, force: true });
}
