import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, segment, waitForStatus, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { exportWorker } from "../../src/exports/export-worker.ts";
import { deliverTo } from "../../src/core/worker.ts";
import type { RecordedEvent } from "../../src/core/event.ts";

/** Exports through HTTP (spec 4.2): light formats on request, heavy ones made by the export worker. */

let app: TestApp;
let user: User;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  user = await app.register();
});
afterAll(() => app.close());

const segments = [
  segment(0, 1500, "Hello, world.", { speaker: "Ann" }),
  segment(1500, 4000, "你好世界", { speaker: "Bo" }),
  segment(6_000_000, 6_001_000, "late <b> & done"),
];

const download = (id: number, format: string, headers: Record<string, string> = {}, who: User = user) =>
  app.request("GET", `/api/tasks/${id}/download/${format}`, { token: who.token, headers });

async function finishedTask(name: string, body: Record<string, unknown> = {}): Promise<number> {
  const id = await createTask(app, user, { name, segments, ...body });
  await waitForStatus(app, user, id, "finished");
  return id;
}

/** Polls a heavy export until it is ready (the worker makes it right after the task finishes). */
async function whenReady(id: number, format: string, timeoutMs = 15_000): Promise<{ status: string; url: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await download(id, format, { accept: "application/json" });
    if (response.status === 200) return json(response);
    expect(response.status).toBe(202);
    if (Date.now() > deadline) throw new Error(`${format} of task ${id} not ready after ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

/** A signed storage URL, fetched through the app (the embedded blob store is served by the API). */
const fetchSigned = (url: string) => app.request("GET", new URL(url).pathname + new URL(url).search);

describe("light formats", () => {
  test("txt, srt, vtt and csv come with their content type and the task's name as an attachment", async () => {
    const id = await finishedTask("Réunion 会议 / plan");
    const expected: Record<string, string> = {
      txt: "text/plain; charset=utf-8",
      srt: "application/x-subrip; charset=utf-8",
      vtt: "text/vtt; charset=utf-8",
      csv: "text/csv; charset=utf-8; header=present",
    };
    for (const [format, type] of Object.entries(expected)) {
      const response = await download(id, format);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(type);
      const disposition = response.headers.get("content-disposition")!;
      expect(disposition).toStartWith(`attachment; filename="R_union __ _ plan.${format}"`);
      expect(disposition).toContain(`filename*=UTF-8''R%C3%A9union%20%E4%BC%9A%E8%AE%AE%20_%20plan.${format}`);
    }
    expect(await (await download(id, "txt")).text()).toBe("Ann: Hello, world.\nBo: 你好世界\nlate <b> & done\n");
    const srt = await (await download(id, "srt")).text();
    expect(srt).toContain("3\n01:40:00,000 --> 01:40:01,000\nlate <\u200bb> & done\n");
    const vtt = await (await download(id, "vtt")).text();
    expect(vtt).toStartWith("WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\n<v Ann>Hello, world.\n");
    expect(vtt).toContain("late &lt;b&gt; &amp; done");
    const csv = new Uint8Array(await (await download(id, "csv")).arrayBuffer());
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(csv)).toContain("\r\n2,00:00:01.500,00:00:04.000,1500,4000,Bo,你好世界\r\n");
  });

  test("an edit shows in the next download", async () => {
    const id = await finishedTask("Edited");
    const patched = await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { text: "one\ntwo\nthree" } });
    expect(patched.status).toBe(200);
    expect(await (await download(id, "txt")).text()).toBe("Ann: one\nBo: two\nthree\n");
  });
});

describe("bad requests", () => {
  test("an unknown format is 422 with errors.format", async () => {
    const id = await finishedTask("Formats");
    const response = await download(id, "mp3");
    expect(response.status).toBe(422);
    const body = await json<{ message: string; errors: Record<string, string[]> }>(response);
    expect(body.errors.format).toEqual(["The format must be one of txt, srt, vtt, csv, json, pdf, docx."]);
  });

  test("a task with no transcript yet is 409 with a message, for light and heavy formats", async () => {
    const id = await createTask(app, user, { name: "Waiting" });
    for (const format of ["txt", "pdf"]) {
      const response = await download(id, format);
      expect(response.status).toBe(409);
      // pending, or scribing/failed once the transcription pipeline has tried its (missing) media
      expect((await json<{ message: string }>(response)).message).toMatch(
        /^The task has no transcript yet \(it is (pending|scribing|failed)\): exports can be downloaded once it is transcribed\.$/,
      );
    }
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: user.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
  });

  test("another user's task, or none, is 404; no token is 401", async () => {
    const id = await finishedTask("Private");
    const other = await app.register();
    expect((await download(id, "txt", {}, other)).status).toBe(404);
    expect((await download(999_999_999, "txt")).status).toBe(404);
    expect((await app.request("GET", `/api/tasks/${id}/download/txt`)).status).toBe(401);
  });
});

describe("heavy formats", () => {
  test("made ahead when the task finishes: JSON asks get a signed URL, others the file", async () => {
    const id = await finishedTask("Rapport été 2025");
    for (const format of ["pdf", "docx"]) {
      const ready = await whenReady(id, format);
      expect(ready.status).toBe("ready");
      const signed = await fetchSigned(ready.url);
      expect(signed.status).toBe(200);
      expect(signed.headers.get("content-disposition")).toContain(`filename*=UTF-8''Rapport%20%C3%A9t%C3%A9%202025.${format}`);
      const file = await download(id, format);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe(
        format === "pdf" ? "application/pdf" : "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      );
      expect(file.headers.get("content-disposition")).toContain(`filename="Rapport _t_ 2025.${format}"`);
      const bytes = new Uint8Array(await file.arrayBuffer());
      expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe(format === "pdf" ? "%PDF" : "PK\u0003\u0004");
      expect(bytes).toEqual(new Uint8Array(await signed.arrayBuffer()));
    }
  });

  test("a stale pdf is never served: after an edit, only the new version's file", async () => {
    const id = await finishedTask("Freshness");
    const first = await whenReady(id, "pdf");
    const before = (await json<{ export: { version: string } }>(await app.request("GET", `/api/tasks/${id}`, { token: user.token }))).export.version;
    expect(first.url).toContain(`${before}.pdf`);
    const patched = await json<{ export: { version: string } }>(
      await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { text: "uno\ndos\ntres" } }),
    );
    expect(patched.export.version).not.toBe(before);
    // Whatever the worker has managed by now, a ready answer names the new version; never the old one.
    const now = await download(id, "pdf", { accept: "application/json" });
    if (now.status === 200) expect((await json<{ url: string }>(now)).url).toContain(`${patched.export.version}.pdf`);
    else expect(await json(now)).toEqual({ status: "processing", message: "The pdf is being generated; retry in a few seconds." });
    expect((await whenReady(id, "pdf")).url).toContain(`${patched.export.version}.pdf`);
  });

  test("deleting the task deletes its export files", async () => {
    const id = await finishedTask("Gone");
    const ready = await whenReady(id, "docx");
    const key = decodeURIComponent(new URL(ready.url).pathname.replace(/^\/storage\//, ""));
    expect(await app.adapters.blobs.head(key)).not.toBeNull();
    await app.request("DELETE", `/api/tasks/${id}`, { token: user.token });
    const deadline = Date.now() + 5000;
    while ((await app.adapters.blobs.head(key)) !== null) {
      if (Date.now() > deadline) throw new Error(`${key} still stored`);
      await Bun.sleep(20);
    }
    await expectNoOrphanBlobs(app);
  });
});

describe("EXPORT_AHEAD_OF_TIME=0: heavy exports are made only when downloaded", () => {
  let lazy: TestApp;
  beforeAll(async () => {
    lazy = await startTestApp({ ...scriptPace, EXPORT_AHEAD_OF_TIME: "0" });
  });
  afterAll(() => lazy.close());

  test("a finished task has no pdf or docx until one is asked for, and then only that one", async () => {
    const owner = await lazy.register();
    const id = await createTask(lazy, owner, { name: "Lazy", segments });
    await waitForStatus(lazy, owner, id, "finished");
    const docx = () => lazy.request("GET", `/api/tasks/${id}/download/docx`, { token: owner.token, headers: { accept: "application/json" } });
    expect((await docx()).status).toBe(202);
    const deadline = Date.now() + 15_000;
    while ((await docx()).status !== 200) {
      if (Date.now() > deadline) throw new Error("the requested docx was never made");
      await Bun.sleep(50);
    }
    // The worker handles a task's events in order: had TaskFinished made exports, the pdf would be there by now.
    const made = (await lazy.adapters.eventStore.readStream(`task-${id}`)).filter((e) => e.type === "ExportGenerated");
    expect(made.map((e) => (e.data as { format: string }).format)).toEqual(["docx"]);
  });
});

describe("without a running export worker (a task finished before the worker existed, or a lost job)", () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startTestApp({ ...scriptPace, ROLES: "api,projections" });
  });
  afterAll(() => api.close());

  test("a download answers 202, asks for the export once, and the request alone gets it made and notified", async () => {
    const owner = await api.register();
    const id = await createTask(api, owner, { name: "Old task", segments });
    const first = await api.request("GET", `/api/tasks/${id}/download/pdf`, { token: owner.token });
    expect(first.status).toBe(202);
    expect(first.headers.get("retry-after")).toBe("3");
    expect(await json(first)).toEqual({ status: "processing", message: "The pdf is being generated; retry in a few seconds." });
    // Clients poll: a second 202 moments later does not ask again.
    const stream = `task-${id}`;
    const requested = async () => (await api.adapters.eventStore.readStream(stream)).filter((e) => e.type === "ExportRequested");
    await waitFor(async () => (await requested()).length === 1);
    expect((await api.request("GET", `/api/tasks/${id}/download/pdf`, { token: owner.token })).status).toBe(202);
    await Bun.sleep(100);
    expect(await requested()).toHaveLength(1);

    // The worker, started now, handles the request: the export is made, recorded and notified.
    const request = (await requested())[0] as RecordedEvent;
    await deliverTo(exportWorker(api.adapters.eventStore, api.adapters.blobs, api.adapters.transcripts), request, undefined as never);
    const generated = (await api.adapters.eventStore.readStream(stream)).filter((e) => e.type === "ExportGenerated");
    expect(generated.map((e) => e.data)).toEqual([
      expect.objectContaining({ format: "pdf", requested: true, version: (request.data as { version: string }).version }),
    ]);
    await api.service.waitForProjections(generated[0]!.position);
    const ready = await api.request("GET", `/api/tasks/${id}/download/pdf`, { token: owner.token, headers: { accept: "application/json" } });
    expect(ready.status).toBe(200);
    const notifications = await json<{ title: string; message: string }[]>(await api.request("GET", "/api/notifications", { token: owner.token }));
    expect(notifications.map((n) => n.title)).toContain("Export ready");
    expect(notifications.find((n) => n.title === "Export ready")!.message).toBe(`The PDF export of task ${id} is ready to download.`);
    // Handled again (a redelivery): nothing new.
    await deliverTo(exportWorker(api.adapters.eventStore, api.adapters.blobs, api.adapters.transcripts), request, undefined as never);
    expect((await api.adapters.eventStore.readStream(stream)).filter((e) => e.type === "ExportGenerated")).toHaveLength(1);

    // An edit makes that file stale: with no worker to make the new one, it is never served again.
    expect((await api.request("PATCH", `/api/tasks/${id}`, { token: owner.token, json: { text: "a\nb\nc" } })).status).toBe(200);
    for (const accept of ["application/json", "*/*"]) {
      const stale = await api.request("GET", `/api/tasks/${id}/download/pdf`, { token: owner.token, headers: { accept } });
      expect(stale.status).toBe(202);
    }
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}
