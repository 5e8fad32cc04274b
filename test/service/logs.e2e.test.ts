import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { spoken } from "../support/media-fixtures.ts";
import { parseLog, type LogLine } from "../support/log-lines.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

/**
 * The log of the real service (`bun src/main.ts`) at LOG_LEVEL=debug, after a flow that handles every kind
 * of secret: a password, access tokens, a paid plan through the signed payment webhook, an API key (used,
 * and put in a query string), a bad token, an upload of speech through signed part URLs, and a pdf export
 * downloaded through its signed URL. Each request the test makes has its own X-Request-Id.
 */
const signingSecret = "logs-e2e-signing-secret-0123456789abcdef";
const password = "correct horse battery staple";
const uploadRequestId = `logs-e2e-upload-${crypto.randomUUID()}`;

type Made = { id: string; method: string; path: string };

let service: RunningService;
let dataDir: string;
const made: Made[] = [];
const secrets: string[] = [password, signingSecret];
let userId: number;
let taskId: number;
let stdout = "";
/** stdout and stderr together. */
let everything = "";
let log: LogLine[] = [];
let notJson: string[] = [];

/** A request with its own X-Request-Id, remembered so its log line can be found. */
async function call(
  method: string,
  url: string,
  options: { token?: string; json?: unknown; body?: RequestInit["body"]; headers?: Record<string, string>; id?: string } = {},
) {
  const id = options.id ?? `logs-e2e-${made.length + 1}-${crypto.randomUUID().slice(0, 8)}`;
  const headers: Record<string, string> = { "x-request-id": id, ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body = options.body;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  }
  const absolute = url.startsWith("http") ? url : `${service.url}${url}`;
  made.push({ id, method, path: new URL(absolute).pathname });
  return fetch(absolute, { method, headers, body });
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}\n${service.output()}`);
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "scribe-logs-"));
  service = await startServiceProcess(
    (url) => ({ PUBLIC_URL: url, LOG_LEVEL: "debug", SIGNING_SECRET: signingSecret, CHUNK_SECONDS: "10", ...manyRequestsPerToken }),
    dataDir,
  );

  const email = `logs-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const registered = await call("POST", "/api/register", { json: { name: "Logs", email, password, password_confirmation: password } });
  expect(registered.status).toBe(201);
  const account = (await registered.json()) as { token: string; user: { id: number } };
  userId = account.user.id;
  const login = await call("POST", "/api/login", { json: { email, password } });
  expect(login.status).toBe(200);
  const token = ((await login.json()) as { token: string }).token;
  secrets.push(account.token, token);

  const badToken = `scr_${"x".repeat(43)}`;
  secrets.push(badToken);
  expect((await call("GET", "/api/user", { token: badToken })).status).toBe(401);

  // The plan with API access is paid through the sandbox provider: its webhook comes back signed, over HTTP.
  const checkout = (await (await call("GET", "/api/checkout/month", { token })).json()) as { checkout_url: string };
  expect((await call("POST", `${checkout.checkout_url}/complete`, { headers: { accept: "text/html" } })).status).toBe(200);
  await eventually(
    async () => ((await (await call("GET", "/api/user", { token })).json()) as { subscription: { plan_key: string } }).subscription.plan_key,
    (plan) => plan === "pro",
    "the plan after paying",
  );

  const key = ((await (await call("POST", "/api/api-keys", { token, json: { name: "logs" } })).json()) as { key: string }).key;
  secrets.push(key);
  expect((await call("GET", "/api/user", { token: key })).status).toBe(200);
  // A key put where it does not belong, in the query string, must not reach the log either.
  expect((await call("GET", `/api/tasks?access_token=${key}`, { token: key })).status).toBe(200);

  // Speech, so the transcription worker runs: the upload's complete carries the id to follow.
  const audio = readFileSync(await spoken("The quick brown fox jumps over the lazy dog."));
  const session = (await (
    await call("POST", "/api/uploads/sign", { token: key, json: { file: "fox.wav", content_type: "audio/wav", size: audio.byteLength } })
  ).json()) as { path: string; upload_id: string; part_size: number; part_count: number };
  for (let n = 1; n <= session.part_count; n++) {
    const part = (await (
      await call("POST", "/api/uploads/sign-part", { token: key, json: { path: session.path, upload_id: session.upload_id, part_number: n } })
    ).json()) as { url: string; headers: Record<string, string> };
    secrets.push(new URL(part.url).search.slice(1), new URL(part.url).searchParams.get("signature")!);
    const put = await call("PUT", part.url, { headers: part.headers, body: audio.subarray((n - 1) * session.part_size, n * session.part_size) });
    expect(put.status).toBe(200);
  }
  const completed = await call("POST", "/api/uploads/complete", {
    token: key,
    id: uploadRequestId,
    json: { path: session.path, upload_id: session.upload_id, original_name: "fox.wav", content_type: "audio/wav", size: audio.byteLength },
  });
  expect(completed.status).toBe(201);
  taskId = ((await completed.json()) as { task: { id: number } }).task.id;
  await eventually(
    async () => ((await (await call("GET", `/api/tasks/${taskId}`, { token })).json()) as { status: string }).status,
    (status) => status === "finished",
    "the task",
    60_000,
  );

  // A pdf is made by a worker, then downloaded through a signed URL.
  const ready = await eventually(
    async () => {
      const response = await call("GET", `/api/tasks/${taskId}/download/pdf`, { token, headers: { accept: "application/json" } });
      return (await response.json()) as { status: string; url?: string };
    },
    (answer) => answer.status === "ready",
    "the pdf export",
  );
  secrets.push(new URL(ready.url!).search.slice(1), new URL(ready.url!).searchParams.get("signature")!);
  const pdf = await call("GET", ready.url!);
  expect(pdf.status).toBe(200);
  expect(new TextDecoder().decode((await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");

  // A request's line is written once it is answered, which the client may see a moment before.
  await eventually(
    async () => made.filter((request) => !service.stdout().includes(`"reqId":"${request.id}"`)).map((request) => request.path),
    (missing) => missing.length === 0,
    "request lines",
    5_000,
  );
  await service.stop();
  stdout = service.stdout();
  everything = service.output();
  ({ lines: log, notJson } = parseLog(stdout));
}, 180_000);

afterAll(async () => {
  if (service?.process.exitCode === null) await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const requestLines = () => log.filter((line) => line.component === "http" && line.msg === "request");

describe("the service's log at LOG_LEVEL=debug", () => {
  test("every line of stdout is a JSON object with a level, a time and a message", () => {
    expect(notJson).toEqual([]);
    expect(log.length).toBeGreaterThan(made.length);
    // A worker's context and a line's own fields never write one key twice.
    expect(stdout.split("\n").filter((line) => line.split('"correlationId":').length > 2)).toEqual([]);
    for (const line of log) {
      expect(typeof line.level).toBe("string");
      expect(typeof line.time).toBe("string");
      expect(typeof line.msg).toBe("string");
    }
  });

  test("exactly one request line per request: reqId, method, route template, status, durationMs, userId", () => {
    const byId = Map.groupBy(requestLines(), (line) => line.reqId as string);
    for (const request of made) {
      const lines = byId.get(request.id) ?? [];
      expect({ request, lines: lines.length }).toEqual({ request, lines: 1 });
      const [line] = lines;
      expect(line!.method).toBe(request.method);
      expect(typeof line!.status).toBe("number");
      expect(typeof line!.durationMs).toBe("number");
      expect(line).toHaveProperty("userId");
      // A template, never a path with ids or a query string.
      expect(line!.route as string).not.toContain("?");
      expect(line!.route as string).not.toContain(String(taskId));
    }
    const detail = requestLines().find((line) => line.reqId === made.find((m) => m.path === `/api/tasks/${taskId}`)!.id)!;
    expect(detail).toMatchObject({ route: "/api/tasks/:id", status: 200, userId });
    const bad = requestLines().filter((line) => line.status === 401);
    expect(bad).toEqual([expect.objectContaining({ route: "/api/user", userId: null })]);
    // The payment provider's webhook is a request too, with the provider's event id as its request id.
    expect(requestLines().some((line) => (line.route as string).includes("webhook") && line.status === 200)).toBe(true);
  });

  test("the upload's request id follows it from HTTP through the workers to the finished task", async () => {
    const followed = log.filter((line) => line.reqId === uploadRequestId || line.correlationId === uploadRequestId);
    // The request's own line comes when it is answered, after what it set off in this process.
    expect(followed.filter((line) => line.msg === "request")).toEqual([
      expect.objectContaining({ reqId: uploadRequestId, route: "/api/uploads/complete", status: 201, userId }),
    ]);
    const jobs = followed.filter((line) => line.component === "worker");
    expect(jobs).toContainEqual(expect.objectContaining({ worker: "upload-completion", eventType: "UploadCompleted", outcome: "done" }));
    expect(jobs).toContainEqual(expect.objectContaining({ worker: "transcription", eventType: "TaskCreated", taskId, outcome: "done" }));
    expect(jobs.some((line) => line.eventType === "TaskFinished" && line.taskId === taskId)).toBe(true);
    const pipeline = followed.filter((line) => line.component === "transcription").map((line) => line.msg);
    expect(pipeline).toEqual(expect.arrayContaining(["transcription started", "transcription finished"]));
    expect(followed.find((line) => line.msg === "transcription finished")).toMatchObject({ taskId, worker: "transcription" });

    const events = await runCli("events", ["--stream", `task-${taskId}`], { DATA_DIR: dataDir });
    expect(events.code).toBe(0);
    const finished = events.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; metadata: { correlationId: string } })
      .find((event) => event.type === "TaskFinished");
    expect(finished?.metadata.correlationId).toBe(uploadRequestId);
  });

  test("no line holds a password, a token, an API key, a signature or the signing secret", () => {
    expect(secrets.length).toBeGreaterThan(8);
    const lines = everything.split("\n");
    for (const secret of secrets) {
      const leaking = lines.filter((line) => line.includes(secret));
      expect({ secret, leaking }).toEqual({ secret, leaking: [] });
    }
    for (const marker of ["signature=", "X-Amz-Signature", "X-Amz-Credential", "$argon2"]) expect(everything).not.toContain(marker);
  });
});

describe("the service's log at LOG_LEVEL=warn", () => {
  test("no request lines, nothing below warn", async () => {
    const quiet = await startServiceProcess({ LOG_LEVEL: "warn" });
    try {
      expect((await fetch(`${quiet.url}/api/tasks`)).status).toBe(401);
      expect((await fetch(`${quiet.url}/api/health`)).status).toBe(200);
    } finally {
      await quiet.stop();
    }
    const { lines, notJson } = parseLog(quiet.stdout());
    expect(notJson).toEqual([]);
    expect(lines.filter((line) => line.msg === "request")).toEqual([]);
    expect(lines.filter((line) => line.level === "info" || line.level === "debug")).toEqual([]);
  });
});
