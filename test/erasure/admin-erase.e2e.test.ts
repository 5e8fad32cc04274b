/**
 * `bun run admin erase` next to a running server (`npm start`'s embedded profile): the operator erases an account
 * without its password; the server refuses its token, its task's files go (its uploaded media before the command
 * ends: the account's keys, which its path is encrypted under, are destroyed last), its email is free.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { until } from "../support/eventually.ts";

describe("bun run admin erase next to a running server", () => {
  let service: RunningService;
  const password = "correct horse battery";
  const email = `erase-${crypto.randomUUID().slice(0, 8)}@example.com`;
  let token = "";
  let userId = 0;
  let taskId = 0;
  let mediaFile = "";
  const admin = (...args: string[]) => runCli("admin", ["erase", ...args], { DATA_DIR: service.dataDir });
  const api = (method: string, path: string, body?: unknown, bearer = token) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const register = () =>
    fetch(`${service.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Opal Operated", email, password, password_confirmation: password }),
    });
  const transcriptFiles = async () => readdir(join(service.dataDir, "blobs", "transcripts", `task-${taskId}`)).catch(() => []);

  beforeAll(async () => {
    service = await startServiceProcess();
    const registered = (await (await register()).json()) as { token: string; user: { id: number } };
    ({ token } = registered);
    userId = registered.user.id;
    // A file as an upload leaves it under the owner's prefix (the embedded blob store keeps a key as a file under blobs/).
    const mediaKey = `uploads/${userId}/${crypto.randomUUID().replaceAll("-", "")}/secret-interview.wav`;
    mediaFile = join(service.dataDir, "blobs", mediaKey);
    await mkdir(join(mediaFile, ".."), { recursive: true });
    await writeFile(mediaFile, new Uint8Array([82, 73, 70, 70]));
    const created = await api("POST", "/api/tasks", {
      disk: "objstore",
      name: "Private",
      path: mediaKey,
      segments: [{ start: 0, end: 900, text: "secret words" }],
    });
    expect(created.status).toBe(201);
    taskId = ((await created.json()) as { id: number }).id;
    await until("the task's transcript blob", async () => (await transcriptFiles()).length > 0);
  });
  afterAll(() => service?.stop());

  test("erases by email without asking, and prints what it erased", async () => {
    const erased = await admin(email);
    expect(erased.code).toBe(0);
    expect(erased.stdout).toContain(`${email} (user ${userId}): erased`);
    expect(erased.stdout).toMatch(/\b1 tasks deleted/);
    expect(erased.stdout).toMatch(/\b1 access tokens revoked/);
    expect(existsSync(mediaFile)).toBe(false);
  });

  test("the server then refuses its token, removes its task's files, and takes its email for a new account", async () => {
    await until("the token to be refused", async () => (await api("GET", "/api/user")).status === 401);
    await until("the transcript blob to go", async () => (await transcriptFiles()).length === 0);
    expect((await register()).status).toBe(201);
  });

  test("an email with no account is refused (exit 1); by id, an erased account's erasure runs again and changes nothing", async () => {
    expect(await admin("nobody@example.com")).toMatchObject({ code: 1, stderr: "admin: no user with email nobody@example.com\n" });
    const again = await admin(String(userId));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/\b0 tasks deleted/);
    expect((await admin("999999")).code).toBe(1);
  });
});
