import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, json, segment, taskCommand, waitForStatus, type User } from "../support/tasks.ts";
import { toneFile } from "../support/uploads.ts";
import type { Segment } from "../../src/tasks/segments.ts";

/**
 * What the export holds beyond a supplied transcript, through the API in process: the engine's timed words, a
 * summary and mind map, a folder, media fetched for a link, a task that never got a transcript; and an API key of
 * the account downloads it as the web app's session does. Opened with Info-ZIP's `unzip`.
 */

if (!Bun.which("unzip")) throw new Error("unzip is missing: run scripts/setup.sh --test (Debian's unzip)");

let app: TestApp;
let user: User;
let dir: string;
let mediaServer: ReturnType<typeof Bun.serve>;
let tone: Uint8Array;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "scribe-data-export-"));
  tone = await toneFile("mp3", 1);
  mediaServer = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(tone, { headers: { "content-type": "audio/mpeg" } }) });
  app = await startTestApp({ ...scriptPace, MEDIA_FETCH_ALLOW_LOOPBACK: "true" });
  user = await app.register();
});
afterAll(async () => {
  await app?.close();
  await mediaServer?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function unpack(response: Response, name: string): Promise<string> {
  expect(response.status).toBe(200);
  const zip = join(dir, `${name}.zip`);
  writeFileSync(zip, new Uint8Array(await response.arrayBuffer()));
  const out = join(dir, name);
  const unzipped = Bun.spawnSync(["unzip", "-q", zip, "-d", out], { stderr: "pipe" });
  expect({ code: unzipped.exitCode, stderr: unzipped.stderr.toString() }).toEqual({ code: 0, stderr: "" });
  return out;
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));
const exportOf = (token: string) => app.request("GET", "/api/user/export", { token });

describe("the data export's content", () => {
  test("timed words, summary, mind map, folder, fetched media, and a task without a transcript", async () => {
    const spoken = await createTask(app, user, { name: "Spoken", segments: [segment(0, 3000, "placeholder")], duration: 3 });
    await waitForStatus(app, user, spoken, "finished");
    const words = [
      { text: "Ask", start: 100, end: 400, confidence: 0.91 },
      { text: "not.", start: 2500, end: 2900, confidence: null },
    ];
    const recognised: Segment[] = [{ id: 7, start: 0, end: 3000, text: "Ask not.", speaker: null, tokens: null, words }];
    await taskCommand(app, spoken, { type: "EditTranscript", transcript: await app.adapters.transcripts.save(spoken, recognised) });
    await taskCommand(app, spoken, { type: "RecordSummary", summary: "A short speech.", mindmap: "- Speech\n  - Ask not" });
    expect((await app.request("POST", "/api/folders", { token: user.token, json: { name: "Speeches" } })).status).toBe(201);
    expect((await app.request("PATCH", `/api/tasks/${spoken}`, { token: user.token, json: { folder: "Speeches" } })).status).toBe(200);
    // A link's media, fetched by the service; recognising a pure tone may finish or fail: either way it keeps its media.
    const linked = await createTask(app, user, { disk: "remote", name: "Linked", path: `http://127.0.0.1:${mediaServer.port}/talk.mp3` });
    for (let i = 0; ; i++) {
      const status = (await getTask(app, user, linked)).status;
      if (status === "finished" || status === "failed") break;
      if (i > 1000) throw new Error(`the linked task is still ${String(status)}`);
      await Bun.sleep(20);
    }
    const failed = await createTask(app, user, { name: "Never transcribed", path: "uploads/gone.mp3" });
    await taskCommand(app, failed, { type: "FailTask", reason: "test" });
    // Appended straight to the log (no read-your-writes wait), while the worker may just have started it: the export
    // reads the read model, so it waits until that shows the failure.
    await waitForStatus(app, user, failed, "failed");

    const out = await unpack(await exportOf(user.token), "content");
    const index = readJson(join(out, "tasks.json")) as { id: number; folder: string | null; archive_folder: string }[];
    const folderOf = (id: number) => index.find((row) => row.id === id)!.archive_folder;
    expect(readJson(join(out, "folders.json"))).toEqual([{ id: expect.any(Number), name: "Speeches" }]);
    expect(index.find((row) => row.id === spoken)!.folder).toBe("Speeches");

    const transcript = readJson(join(out, folderOf(spoken), "transcript.json"));
    expect(transcript).toEqual({ segments: [{ id: 7, start: 0, end: 3000, text: "Ask not.", speaker: null, words }] });
    expect(transcript).toEqual(await json(await app.request("GET", `/api/tasks/${spoken}/download/json`, { token: user.token })));
    expect(readFileSync(join(out, folderOf(spoken), "summary.txt"), "utf8")).toBe("A short speech.");
    expect(readFileSync(join(out, folderOf(spoken), "mindmap.md"), "utf8")).toBe("- Speech\n  - Ask not");
    expect(readJson(join(out, folderOf(spoken), "task.json"))).toEqual(await getTask(app, user, spoken));

    const linkedFiles = readdirSync(join(out, folderOf(linked), "media"));
    expect(linkedFiles).toHaveLength(1);
    expect(new Uint8Array(readFileSync(join(out, folderOf(linked), "media", linkedFiles[0]!)))).toEqual(new Uint8Array(tone));

    expect(readdirSync(join(out, folderOf(failed)))).toEqual(["task.json"]);
    expect(readJson(join(out, folderOf(failed), "task.json"))).toEqual(await getTask(app, user, failed));
  }, 30_000);

  test("an API key of the account downloads it (a paid plan's key reads all of this through the API anyway)", async () => {
    const paid = await app.register();
    await app.setPlan(paid.id, "pro");
    const created = await app.request("POST", "/api/api-keys", { token: paid.token, json: { name: "backup" } });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    await createTask(app, paid, { name: "Mine", segments: [segment(0, 1000, "Mine.")] });
    const out = await unpack(await exportOf(key), "api-key");
    expect((readJson(join(out, "tasks.json")) as { name: string }[]).map((row) => row.name)).toEqual(["Mine"]);
    expect((readJson(join(out, "profile.json")) as { id: number }).id).toBe(paid.id);
  });
});

describe("the route in the OpenAPI document", () => {
  test("a zip on 200, the one error shape on 401 and 429, under the User tag", async () => {
    const document = await json<{ paths: Record<string, { get: { tags: string[]; responses: Record<string, { content?: object }> } }> }>(
      await app.request("GET", "/swagger/json"),
    );
    const operation = document.paths["/api/user/export"]!.get;
    expect(operation.tags).toEqual(["User"]);
    expect(Object.keys(operation.responses["200"]!.content!)).toEqual(["application/zip"]);
    for (const status of ["401", "429"]) expect(JSON.stringify(operation.responses[status])).toContain("#/components/schemas/Error");
  });
});
