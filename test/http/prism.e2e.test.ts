/**
 * The seed workflow and its error cases through Prism's validating proxy (`prism proxy --errors`), the
 * way an API consumer checks a contract: every request and every answer of the live service is
 * validated against the document it serves, and Prism must report no violation. The error cases are
 * the ones a valid request meets (a wrong token, someone else's id, a taken name, a plan limit, a
 * bad range): a request the document itself forbids never reaches the service through Prism.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { createScribeClient } from "../../clients/typescript/client.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

const root = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "scribe-prism-"));
let service: RunningService;
let prism: Subprocess<"ignore", "pipe", "pipe">;
let proxy: string;
const log: string[] = [];

beforeAll(async () => {
  service = await startServiceProcess((url) => ({ PUBLIC_URL: url, TRANSCRIPTION_WORKER: "off", ...manyRequestsPerToken }));
  const document = join(dir, "openapi.json");
  writeFileSync(document, await (await fetch(`${service.url}/swagger/json`)).text());
  const port = freePort();
  proxy = `http://127.0.0.1:${port}`;
  prism = Bun.spawn([join(root, "node_modules/.bin/prism"), "proxy", document, service.url, "--errors", "--host", "127.0.0.1", "--port", String(port)], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  void (async () => {
    for await (const chunk of prism.stdout.pipeThrough(new TextDecoderStream())) log.push(chunk);
  })();
  for (let i = 0; i < 150; i++) {
    try {
      if ((await fetch(`${proxy}/api/health`)).ok) return;
    } catch {
      await Bun.sleep(100);
    }
  }
  throw new Error(`prism did not start:\n${log.join("")}`);
}, 60_000);

afterAll(async () => {
  prism?.kill();
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What Prism said about requests and answers: anything but `info` is a violation. */
const violations = () =>
  log
    .join("")
    .split("\n")
    .filter((line) => /✖|⚠|violation|Request terminated/i.test(line));

test("the whole seed workflow and its error cases: every request and answer as the document says", async () => {
  const email = `prism-${crypto.randomUUID()}@example.com`;
  const anonymous = createScribeClient(proxy);
  const password = "correct horse battery";

  // Accounts: register, a wrong password, log in, a wrong token.
  const registered = await anonymous.POST("/api/register", { body: { name: "Prism", email, password, password_confirmation: password } });
  expect(registered.response.status).toBe(201);
  expect((await anonymous.POST("/api/register", { body: { name: "Again", email, password, password_confirmation: password } })).response.status).toBe(422);
  expect((await anonymous.POST("/api/login", { body: { email, password: "not the password" } })).response.status).toBe(401);
  const login = await anonymous.POST("/api/login", { body: { email, password } });
  expect(login.response.status).toBe(200);
  const token = login.data!.token;
  const scribe = createScribeClient(proxy, token);
  expect((await createScribeClient(proxy, "not-a-token").GET("/api/user")).response.status).toBe(401);

  // Profile, balance, notifications, API keys (Free has no API access), checkout.
  expect((await scribe.GET("/api/user")).data?.email).toBe(email);
  expect((await scribe.PUT("/api/user", { body: { name: "Prism Client" } })).data?.name).toBe("Prism Client");
  expect((await scribe.GET("/api/notifications")).response.status).toBe(200);
  expect((await scribe.POST("/api/notifications/mark-all-as-read")).response.status).toBe(200);
  expect((await scribe.GET("/api/api-keys")).response.status).toBe(200);
  expect((await scribe.POST("/api/api-keys", { body: { name: "ci" } })).response.status).toBe(403);
  expect((await scribe.GET("/api/checkout/{plan}", { params: { path: { plan: "month" } } })).response.status).toBe(200);
  expect((await scribe.GET("/api/checkout/{plan}", { params: { path: { plan: "lifetime" } } })).response.status).toBe(404);

  // Folders.
  const folder = await scribe.POST("/api/folders", { body: { name: "Work" } });
  expect(folder.response.status).toBe(201);
  expect((await scribe.POST("/api/folders", { body: { name: "work" } })).response.status).toBe(422);
  const renamed = await scribe.PATCH("/api/folders/{name}", { params: { path: { name: "Work" } }, body: { name: "Office" } });
  expect({ status: renamed.response.status, error: renamed.error }).toEqual({ status: 200, error: undefined });
  expect(renamed.data?.name).toBe("Office");
  expect((await scribe.GET("/api/folders")).data?.folders.map((f) => f.name)).toEqual(["Office"]);

  // A task with its transcript: read, list, edit, share, history, exports.
  const created = await scribe.POST("/api/tasks", {
    body: { disk: "objstore", name: "Stand-up", path: "uploads/standup.mp3", segments: [{ start: 0, end: 1500, text: "Good morning." }] },
  });
  expect(created.response.status).toBe(201);
  const id = created.data!.id;
  for (let i = 0; i < 100 && (await scribe.GET("/api/tasks/{id}", { params: { path: { id } } })).data?.status !== "finished"; i++) await Bun.sleep(20);
  expect((await scribe.GET("/api/tasks/{id}", { params: { path: { id } } })).data?.status).toBe("finished");
  expect((await scribe.GET("/api/tasks", { params: { query: { search: "stand", per_page: 5 } } })).data?.total).toBe(1);
  expect((await scribe.PATCH("/api/tasks/{id}", { params: { path: { id } }, body: { name: "Daily", folder: "Office" } })).response.status).toBe(200);
  expect((await scribe.GET("/api/tasks/{id}/share-url", { params: { path: { id } } })).response.status).toBe(200);
  expect((await anonymous.GET("/share/tasks/{id}", { params: { path: { id } }, headers: { accept: "application/json" } })).response.status).toBe(200);
  expect((await scribe.DELETE("/api/tasks/{id}/share-url", { params: { path: { id } } })).response.status).toBe(200);
  expect((await scribe.GET("/api/tasks/{id}/history", { params: { path: { id } } })).response.status).toBe(200);
  expect((await scribe.PATCH("/api/tasks/{id}/retry", { params: { path: { id } } })).response.status).toBe(422);
  for (const format of ["txt", "srt", "vtt", "csv"] as const) {
    const file = await scribe.GET("/api/tasks/{id}/download/{format}", { params: { path: { id, format } }, parseAs: "text" });
    expect({ format, status: file.response.status }).toEqual({ format, status: 200 });
  }
  let pdf = await scribe.GET("/api/tasks/{id}/download/{format}", { params: { path: { id, format: "pdf" } }, headers: { accept: "application/json" } });
  for (let i = 0; i < 100 && pdf.response.status === 202; i++) {
    await Bun.sleep(100);
    pdf = await scribe.GET("/api/tasks/{id}/download/{format}", { params: { path: { id, format: "pdf" } }, headers: { accept: "application/json" } });
  }
  expect(pdf.response.status).toBe(200);
  expect((await scribe.GET("/api/tasks/{id}", { params: { path: { id: 987_654 } } })).response.status).toBe(404);

  // An upload: sign, a part straight to storage, complete; the task's audio with and without a range.
  const bytes = new Uint8Array(4000).map((_, i) => i % 251);
  expect((await scribe.GET("/api/uploads/formats")).response.status).toBe(200);
  const signed = await scribe.POST("/api/uploads/sign", { body: { file: "call.mp3", content_type: "audio/mpeg", size: bytes.byteLength } });
  expect(signed.response.status).toBe(200);
  const session = signed.data!;
  const part = await scribe.POST("/api/uploads/sign-part", { body: { path: session.path, upload_id: session.upload_id, part_number: 1 } });
  expect((await fetch(part.data!.url, { method: "PUT", headers: part.data!.headers, body: bytes })).status).toBe(200);
  const completed = await scribe.POST("/api/uploads/complete", {
    body: { path: session.path, upload_id: session.upload_id, original_name: "call.mp3", content_type: "audio/mpeg", size: bytes.byteLength, duration: 5 },
  });
  expect(completed.response.status).toBe(201);
  const uploaded = completed.data!.task.id;
  const audio = (range?: string) =>
    fetch(`${proxy}/api/tasks/${uploaded}/audio`, { headers: { authorization: `Bearer ${token}`, ...(range ? { range } : {}) } });
  expect((await audio()).status).toBe(200);
  expect((await audio("bytes=0-99")).status).toBe(206);
  expect((await audio("bytes=99999-")).status).toBe(416);
  const another = await scribe.POST("/api/uploads/sign", { body: { file: "b.mp3", content_type: "audio/mpeg", size: 10 } });
  expect((await scribe.POST("/api/uploads/abort", { body: { path: another.data!.path, upload_id: another.data!.upload_id } })).response.status).toBe(200);

  // Plan limits: video links need a paid plan; three tasks in progress at most.
  expect((await scribe.POST("/api/tasks", { body: { disk: "videolink", name: "Talk", path: "https://video.example.com/watch?v=1" } })).response.status).toBe(
    403,
  );
  for (const name of ["one", "two"])
    expect((await scribe.POST("/api/tasks", { body: { disk: "objstore", name, path: `uploads/${name}.mp3` } })).response.status).toBe(201);
  expect((await scribe.POST("/api/tasks", { body: { disk: "objstore", name: "four", path: "uploads/four.mp3" } })).response.status).toBe(429);

  // Bulk, deletes, the folder, and logging out.
  expect((await scribe.DELETE("/api/tasks/bulk", { body: { ids: [id] } })).response.status).toBe(200);
  expect((await scribe.DELETE("/api/tasks/{id}", { params: { path: { id: uploaded } } })).response.status).toBe(200);
  expect((await scribe.DELETE("/api/folders/{name}", { params: { path: { name: "Office" } } })).response.status).toBe(200);
  expect((await scribe.POST("/api/logout")).response.status).toBe(204);
  expect((await scribe.GET("/api/user")).response.status).toBe(401);

  await Bun.sleep(200); // the last lines of Prism's log
  const forwarded = log.join("").match(/The upstream call to/g)?.length ?? 0;
  expect(forwarded).toBeGreaterThan(50);
  expect(violations()).toEqual([]);
});

test("a request the document forbids is a violation Prism reports (the check above would see it)", async () => {
  const before = violations().length;
  const response = await fetch(`${proxy}/api/tasks?per_page=500`, { headers: { authorization: "Bearer x" } });
  expect(response.status).toBe(422);
  await Bun.sleep(200);
  expect(violations().length).toBeGreaterThan(before);
}, 120_000);
