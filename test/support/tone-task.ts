import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "./eventually.ts";
import { ffmpeg } from "./media-fixtures.ts";
import type { UploadClient } from "./upload-client.ts";

type Segment = { start: number; end: number; text: string; speaker: string };
type TaskView = { status: string; summary: string | null; mindmap: string | null };

/**
 * A finished task on real media for the browser tests: `seconds` of tone uploaded through the multipart API (so
 * the page's <audio> streams and seeks it), with `segments` supplied, which skips recognition. With `summarized`,
 * it waits for the summary and mind map too. Returns the task's id.
 */
export async function finishedToneTask(
  client: UploadClient,
  task: { name: string; file: string; seconds: number; segments: Segment[]; summarized?: boolean },
): Promise<number> {
  const path = join(tmpdir(), `tone-${crypto.randomUUID()}.wav`);
  await ffmpeg("-f", "lavfi", "-i", `sine=frequency=440:duration=${task.seconds}`, "-ac", "1", "-ar", "8000", path);
  const bytes = new Uint8Array(await readFile(path));
  const session = await client.sign(task.file, "audio/wav", bytes.byteLength);
  await client.putAll(session, new Blob([bytes]));
  const completed = await client.complete(session, task.file, "audio/wav", bytes.byteLength);
  if (completed.status !== 201) throw new Error(`completing the upload: ${completed.status} ${await completed.text()}`);
  const { id } = await client.json<{ id: number }>(
    "POST",
    "/api/tasks",
    { disk: "objstore", name: task.name, path: session.path, file: task.file, segments: task.segments },
    201,
  );
  await until(`task ${id} finished${task.summarized ? " with its summary" : ""}`, async () => {
    const view = await client.json<TaskView>("GET", `/api/tasks/${id}`);
    return view.status === "finished" && (!task.summarized || (view.summary && view.mindmap));
  });
  return id;
}
