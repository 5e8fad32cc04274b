import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { scriptPace } from "../support/limits.ts";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";

/**
 * `GET /api/user/export` of the running service (`bun src/main.ts`, over HTTP), opened with Info-ZIP's `unzip` as a
 * person would, and every file in it checked against what the API answers for the same thing.
 */

if (!Bun.which("unzip")) throw new Error("unzip is missing: run scripts/setup.sh --test (Debian's unzip)");

type Account = { token: string; id: number; email: string; password: string };
type Json = Record<string, unknown>;

let service: RunningService;
let dir: string;

const api = (path: string, token?: string, init: RequestInit = {}) =>
  fetch(`${service.url}${path}`, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as object) } });

async function register(name: string): Promise<Account> {
  const email = `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery";
  const response = await api("/api/register", undefined, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, email, password, password_confirmation: password }),
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { token: string; user: { id: number } };
  return { token: body.token, id: body.user.id, email, password };
}

async function createTask(account: Account, body: Json): Promise<number> {
  const response = await api("/api/tasks", account.token, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  const id = ((await response.json()) as { id: number }).id;
  for (let i = 0; ; i++) {
    const task = (await (await api(`/api/tasks/${id}`, account.token)).json()) as { status: string };
    if (task.status === "finished") return id;
    if (i > 400) throw new Error(`task ${id} is ${task.status}`);
    await Bun.sleep(25);
  }
}

/** Downloads the export, checks it with `unzip -t`, unpacks it and returns the folder. */
async function unpacked(response: Response, name: string): Promise<string> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/zip");
  const date = new Date().toISOString().slice(0, 10);
  expect(response.headers.get("content-disposition")).toStartWith(`attachment; filename="scribe-data-${date}.zip"`);
  const zip = join(dir, `${name}.zip`);
  writeFileSync(zip, new Uint8Array(await response.arrayBuffer()));
  const tested = Bun.spawnSync(["unzip", "-t", zip], { stdout: "pipe", stderr: "pipe" });
  expect({ code: tested.exitCode, out: tested.stdout.toString() }).toMatchObject({ code: 0, out: expect.stringContaining("No errors detected") });
  const out = join(dir, name);
  expect(Bun.spawnSync(["unzip", "-q", zip, "-d", out]).exitCode).toBe(0);
  return out;
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

let owner: Account;
let stranger: Account;
const ids: number[] = [];
let mediaTask: number;
const media = crypto.getRandomValues(new Uint8Array(300_000));
const transcript = [
  { start: 0, end: 2_000, text: 'Private words, "quoted", <b>markup</b> --> and 你好.', speaker: "Ann" },
  { start: 2_500, end: 4_000, text: "A second line.", speaker: null },
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "scribe-data-export-"));
  service = await startServiceProcess((url) => ({ PUBLIC_URL: url, ...scriptPace }));
  [owner, stranger] = await Promise.all([register("Owner"), register("Stranger")]);
  // The media of an upload, put where an upload's completion leaves it (under the owner's prefix).
  const key = `uploads/${owner.id}/${crypto.randomUUID().replaceAll("-", "")}/voice-memo.mp3`;
  const blobs = new FileBlobStore({ root: join(service.dataDir, "blobs"), publicUrl: service.url, secret: "test" });
  await blobs.put(key, media, { contentType: "audio/mpeg" });
  await blobs.close();
  mediaTask = await createTask(owner, { disk: "objstore", name: "Interview: ../../etc/passwd", path: key, duration: 5, segments: transcript });
  ids.push(mediaTask);
  ids.push(await createTask(owner, { disk: "objstore", name: "Meeting 会议 🎙", path: "uploads/none.mp3", duration: 9, segments: transcript.slice(1) }));
  await createTask(stranger, { disk: "objstore", name: "Stranger's secret", path: "uploads/x.mp3", segments: transcript });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("GET /api/user/export", () => {
  test("a zip whose every file equals the API's answer: profile, task details, transcripts as JSON and SRT, summary, media", async () => {
    const out = await unpacked(await api("/api/user/export", owner.token), "owner");
    expect(readFileSync(join(out, "README.txt"), "utf8")).toContain("GET /api/tasks/{id}");
    expect(readJson(join(out, "profile.json"))).toEqual(await (await api("/api/user", owner.token)).json());
    expect(readJson(join(out, "folders.json"))).toEqual([]);
    const index = readJson(join(out, "tasks.json")) as { id: number; archive_folder: string }[];
    // Newest first, only the owner's.
    expect(index.map((row) => row.id)).toEqual([...ids].reverse());
    expect(readdirSync(join(out, "tasks")).sort()).toEqual(index.map((row) => row.archive_folder.slice("tasks/".length)).sort());
    for (const { id, archive_folder: folder } of index) {
      const task = (await (await api(`/api/tasks/${id}`, owner.token)).json()) as Json;
      expect(readJson(join(out, folder, "task.json"))).toEqual(task);
      const srt = await (await api(`/api/tasks/${id}/download/srt`, owner.token)).text();
      expect(readFileSync(join(out, folder, "transcript.srt"), "utf8")).toBe(srt);
      expect(readJson(join(out, folder, "transcript.json"))).toEqual(await (await api(`/api/tasks/${id}/download/json`, owner.token)).json());
      if (task.summary !== null) expect(readFileSync(join(out, folder, "summary.txt"), "utf8")).toBe(String(task.summary));
      if (task.mindmap !== null) expect(readFileSync(join(out, folder, "mindmap.md"), "utf8")).toBe(String(task.mindmap));
    }
    // The task's name cannot lead outside the archive's folder (no `/` in it); its media is the file the audio route serves.
    const withMedia = index.find((row) => row.id === mediaTask)!.archive_folder;
    expect(withMedia).toBe(`tasks/${mediaTask} Interview_ .._.._etc_passwd`);
    const served = new Uint8Array(await (await api(`/api/tasks/${mediaTask}/audio`, owner.token)).arrayBuffer());
    expect(new Uint8Array(readFileSync(join(out, withMedia, "media", "voice-memo.mp3")))).toEqual(served);
    expect(served).toEqual(media);
    // A task whose upload is not there has no media folder.
    expect(readdirSync(join(out, index.find((row) => row.id !== mediaTask)!.archive_folder)).sort()).not.toContain("media");
  });

  test("another account's export holds only its own task; an account with no task gets a valid zip", async () => {
    const out = await unpacked(await api("/api/user/export", stranger.token), "stranger");
    const index = readJson(join(out, "tasks.json")) as { id: number; name: string }[];
    expect(index.map((row) => row.name)).toEqual(["Stranger's secret"]);
    expect(index.some((row) => ids.includes(row.id))).toBe(false);
    const empty = await unpacked(await api("/api/user/export", (await register("Empty")).token), "empty");
    expect(readdirSync(empty).sort()).toEqual(["README.txt", "folders.json", "profile.json", "tasks.json"]);
    expect(readJson(join(empty, "tasks.json"))).toEqual([]);
  });

  test("the web app's session cookie downloads it through a plain link", async () => {
    const signedIn = await api("/api/session", undefined, {
      method: "POST",
      headers: { "content-type": "application/json", origin: service.url },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith("scribe_session="))!
      .split(";")[0]!;
    const out = await unpacked(await api("/api/user/export", undefined, { headers: { cookie } }), "session");
    expect((readJson(join(out, "tasks.json")) as unknown[]).length).toBe(ids.length);
  });

  test("401 in the one error shape without credentials, or with a wrong token", async () => {
    for (const response of [await api("/api/user/export"), await api("/api/user/export", "not-a-token")]) {
      expect(response.status).toBe(401);
      expect(((await response.json()) as { message: string }).message).toBeString();
    }
  });

  test("one export at a time per account: a second one while the first is read is 429; once it is cancelled, a new one starts", async () => {
    // 64 MiB of media: more than the sockets' buffers hold, so the first export is still being made while it is unread.
    const big = await register("Big");
    const key = `uploads/${big.id}/${crypto.randomUUID().replaceAll("-", "")}/long.wav`;
    const blobs = new FileBlobStore({ root: join(service.dataDir, "blobs"), publicUrl: service.url, secret: "test" });
    await blobs.put(key, new Uint8Array(64 * 1024 * 1024).fill(7), { contentType: "audio/wav" });
    await blobs.close();
    await createTask(big, { disk: "objstore", name: "Long", path: key, duration: 60, segments: transcript });
    const first = await api("/api/user/export", big.token);
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    await reader.read();
    const second = await api("/api/user/export", big.token);
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toBe("60");
    expect(((await second.json()) as { message: string }).message).toContain("already being downloaded");
    // Another account is not held up by it.
    const other = await api("/api/user/export", stranger.token);
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    await reader.cancel();
    for (let i = 0; ; i++) {
      const again = await api("/api/user/export", big.token);
      if (again.status === 200) {
        await again.body!.cancel();
        break;
      }
      expect(again.status).toBe(429);
      if (i > 100) throw new Error("the cancelled export still holds the account's lease");
      await Bun.sleep(50);
    }
  });
});
