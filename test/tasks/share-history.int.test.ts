import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { runCli, startServiceProcess } from "../support/service-process.ts";
import { createFolder, createTask, getTask, json, segment, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { manyLogins, manyRequestsPerToken, scriptPace } from "../support/limits.ts";

const publicUrl = "https://scribe.example.test";
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, PUBLIC_URL: publicUrl, TRANSCRIPTION_WORKER: "off" }); // nothing transcribes these made-up paths
});
afterAll(() => app.close());

const shareUrl = (user: User, id: number) => app.request("GET", `/api/tasks/${id}/share-url`, { token: user.token });
const page = (id: number, headers: Record<string, string> = {}) => app.request("GET", `/share/tasks/${id}`, { headers });

async function transcribed(
  user: User,
  segments = [segment(0, 1200, "Good morning."), segment(1200, 3000, '<script>alert(1)</script> & "quotes"', { speaker: "<b>Bob</b>" })],
) {
  const id = await createTask(app, user, { name: "Stand-up <i>notes</i>", segments });
  await waitForStatus(app, user, id, "finished");
  return id;
}

describe("GET /api/tasks/{id}/share-url and the public page (spec 4.2)", () => {
  test("share_url is PUBLIC_URL/share/tasks/<id>, stable across calls", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const response = await shareUrl(user, id);
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ share_url: `${publicUrl}/share/tasks/${id}` });
    expect(await json(await shareUrl(user, id))).toEqual({ share_url: `${publicUrl}/share/tasks/${id}` });
  });

  test("the page is public: HTML by default, JSON for Accept: application/json", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    expect((await page(id)).status).toBe(404); // not shared yet
    await shareUrl(user, id);
    const html = await page(id);
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toContain("text/html");
    const text = await html.text();
    expect(text).toContain("Good morning.");
    expect(text).toContain("<!doctype html>");
    const asJson = await page(id, { accept: "application/json" });
    expect(asJson.status).toBe(200);
    expect(asJson.headers.get("content-type")).toContain("application/json");
    const body = await json(asJson);
    expect(body).toMatchObject({ id, name: "Stand-up <i>notes</i>", status: "finished", summary: 'Good morning. <script>alert(1)</script> & "quotes"' });
    expect((body.segments as Json[]).map((s) => [s.start, s.end, s.text, s.speaker])).toEqual([
      [0, 1200, "Good morning.", null],
      [1200, 3000, '<script>alert(1)</script> & "quotes"', "<b>Bob</b>"],
    ]);
    // What the page shows is the transcript as it is now.
    await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { text: "Good evening.\nBye." } });
    expect(await (await page(id)).text()).toContain("Good evening.");
  });

  test("transcript text, speaker and name are HTML-escaped", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await shareUrl(user, id);
    const text = await (await page(id)).text();
    expect(text).not.toContain("<script>");
    expect(text).not.toContain("<b>Bob</b>");
    expect(text).not.toContain("<i>notes</i>");
    expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(text).toContain("&amp; &quot;quotes&quot;");
    expect(text).toContain("&lt;b&gt;Bob&lt;/b&gt;");
  });

  test("DELETE /api/tasks/{id}/share-url ends the share (404); sharing again reopens it", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await shareUrl(user, id);
    const response = await app.request("DELETE", `/api/tasks/${id}/share-url`, { token: user.token });
    expect(response.status).toBe(200);
    expect(typeof (await json(response)).message).toBe("string");
    expect((await page(id)).status).toBe(404);
    expect((await page(id, { accept: "application/json" })).status).toBe(404);
    await shareUrl(user, id);
    expect((await page(id)).status).toBe(200);
  });

  test("deleting the task ends the share (404)", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await shareUrl(user, id);
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: user.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await page(id)).status).toBe(404);
    expect((await page(id, { accept: "application/json" })).status).toBe(404);
  });

  test("unknown and malformed share ids are 404 or 422, never 500", async () => {
    for (const id of ["999999999", "abc", "0", "-1", "1.5"]) {
      expect([404, 422]).toContain((await app.request("GET", `/share/tasks/${id}`)).status);
    }
  });
});

describe("GET /api/tasks/{id}/history", () => {
  test("lists the task's events, oldest first, with type, time, who acted (user_id or system) and a data summary", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await createFolder(app, user, "Work");
    await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { name: "Renamed", folder: "Work" } });
    const response = await app.request("GET", `/api/tasks/${id}/history`, { token: user.token });
    expect(response.status).toBe(200);
    const events = await json<Json[]>(response);
    expect(events.map((e) => e.type)).toEqual(["TaskCreated", "TaskFinished", "TaskMoved", "TaskRenamed"]);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(["data", "id", "position", "system", "time", "type", "user_id"]);
      expect(event.time as string).toMatch(/^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:\d\d)$/);
    }
    const positions = events.map((e) => e.position as number);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The owner acted, except for the worker that finished the supplied transcript.
    expect(events.map((e) => e.user_id)).toEqual([user.id, null, user.id, user.id]);
    expect(events.map((e) => e.system)).toEqual([null, "supplied-transcripts", null, null]);
    const created = events[0]!.data as Json;
    expect(created).toMatchObject({ taskId: id, userId: user.id, name: "Stand-up <i>notes</i>", disk: "objstore", segments: "2 segments" });
    expect(events[3]!.data).toMatchObject({ name: "Renamed" });
    expect((events[2]!.data as { folder: Json }).folder).toMatchObject({ name: "Work" });
    expect(JSON.stringify(events)).not.toContain("Good morning.");
  });

  test("another user's task history is 404", async () => {
    const owner = await app.register();
    const stranger = await app.register();
    const id = await createTask(app, owner);
    expect((await app.request("GET", `/api/tasks/${id}/history`, { token: stranger.token })).status).toBe(404);
    expect((await app.request("GET", `/api/tasks/${id}/history`)).status).toBe(401);
    expect((await getTask(app, owner, id)).id).toBe(id);
  });
});

describe("history and `bun run events --stream task-<id>` agree", () => {
  test("the same event ids, in the same order", async () => {
    // TRANSCRIPTION_WORKER off: the made-up path is not transcribed, so the history holds only these requests.
    const service = await startServiceProcess({ ...manyRequestsPerToken, ...manyLogins, TRANSCRIPTION_WORKER: "off" });
    try {
      const call = async (method: string, path: string, token?: string, body?: unknown) => {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (token) headers.authorization = `Bearer ${token}`;
        return fetch(`${service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      };
      const registered = await call("POST", "/api/register", undefined, {
        name: "H",
        email: "history@example.com",
        password: "password123",
        password_confirmation: "password123",
      });
      const { token } = (await registered.json()) as { token: string };
      const created = (await (await call("POST", "/api/tasks", token, { disk: "objstore", name: "Logged", path: "uploads/x.mp3" })).json()) as { id: number };
      await call("PATCH", `/api/tasks/${created.id}`, token, { name: "Logged again", quality: 3 });
      await call("GET", `/api/tasks/${created.id}/share-url`, token);
      await call("DELETE", `/api/tasks/${created.id}/share-url`, token);
      const history = (await (await call("GET", `/api/tasks/${created.id}/history`, token)).json()) as { id: string; type: string; position: number }[];
      expect(history.map((e) => e.type)).toEqual(["TaskCreated", "TaskRenamed", "TaskRated", "TaskShared", "TaskUnshared"]);

      const cli = await runCli("events", ["--stream", `task-${created.id}`], { DATA_DIR: service.dataDir });
      expect(cli.code).toBe(0);
      const lines = cli.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id: string; type: string; position: number; streamName: string });
      expect(lines.map((e) => e.id)).toEqual(history.map((e) => e.id));
      expect(lines.map((e) => e.position)).toEqual(history.map((e) => e.position));
      expect(lines.every((e) => e.streamName === `task-${created.id}`)).toBe(true);
    } finally {
      await service.stop();
    }
  });
});
