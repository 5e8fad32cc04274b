import { startTestApp, type TestApp } from "../../test/support/test-app.ts";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { pipelineObservers, type PipelineTimings } from "../../src/transcription/timings.ts";

export type BenchUser = { token: string; id: number };

/** The whole service in process (embedded profile) with an account that has plenty of time on its balance. */
export async function benchApp(env: Record<string, string> = {}): Promise<{ app: TestApp; user: BenchUser }> {
  const app = await startTestApp(env);
  const user = await app.register();
  const { position } = await handle(
    app.adapters.eventStore,
    userStream(user.id),
    userDecider,
    (state) => userDecider.decide({ type: "TopUpSeconds", seconds: 1_000_000, source: "operator", now: new Date().toISOString() }, state),
    {
      metadata: { correlationId: "bench", causationId: null, userId: null, system: "bench" },
    },
  );
  if (position !== null) await app.service.waitForProjections(position);
  return { app, user };
}

export type Transcribed = { id: number; ms: number; task: Record<string, unknown>; timings: PipelineTimings | null };

/**
 * Stores `media` as an upload would, creates the task over HTTP and waits until the read model shows it
 * finished (or failed): `ms` runs from the create request to that moment.
 */
export async function transcribe(
  app: TestApp,
  user: BenchUser,
  media: Uint8Array,
  options: { name?: string; contentType?: string; diarization?: boolean } = {},
): Promise<Transcribed> {
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/bench`;
  await app.adapters.blobs.put(key, media, { contentType: options.contentType ?? "application/octet-stream" });
  let timings: PipelineTimings | null = null;
  let taskId = -1;
  const observer = (t: PipelineTimings) => {
    if (t.taskId === taskId) timings = t;
  };
  pipelineObservers.add(observer);
  const ended = new Promise<number>((resolve) => {
    const subscription = app.adapters.eventStore.subscribe({}, (event) => {
      if (event.streamName === taskStream(taskId) && (event.type === "TaskFinished" || event.type === "TaskFailed")) {
        resolve(event.position);
        void subscription.stop();
      }
    });
  });
  const started = performance.now();
  const response = await app.request("POST", "/api/tasks", {
    token: user.token,
    json: { disk: "objstore", name: options.name ?? "Bench", path: key, speaker_diarization: options.diarization ?? false },
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  taskId = ((await response.json()) as { id: number }).id;
  await app.service.waitForProjections(await ended);
  const ms = performance.now() - started;
  pipelineObservers.delete(observer);
  const task = (await (await app.request("GET", `/api/tasks/${taskId}`, { token: user.token })).json()) as Record<string, unknown>;
  return { id: taskId, ms, task, timings };
}

/** Runs ffmpeg, throwing with its log when it fails. */
export async function ffmpeg(args: string[]): Promise<void> {
  const child = Bun.spawn(["ffmpeg", "-nostdin", "-v", "error", "-y", ...args], { stdout: "ignore", stderr: "pipe" });
  const [log, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`ffmpeg ${args.join(" ")} failed: ${log}`);
}

/** Text of a transcript's segments. */
export const transcriptText = (task: Record<string, unknown>) => ((task.segments as { text: string }[] | null) ?? []).map((s) => s.text).join(" ");
