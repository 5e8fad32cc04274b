/**
 * A standing BOLA (broken object-level authorization) matrix against the started service over HTTP.
 * User A owns a resource of every kind: a transcribed task with segments (in a folder, shared, with a
 * ready pdf export), a task from a completed multipart upload (failed, so retryable), a task whose media
 * was fetched from a URL (`media/<A>/...`), an upload still in progress, folders, an API key, an avatar,
 * notifications and a checkout reference. User B, with a login token and with an API key, then tries
 * every operation of the service's own OpenAPI document on each of them, by every way an object can be
 * named: id in the path (and other spellings of it), in the query, in body fields, storage keys and
 * storage URLs, share links and checkout references.
 *
 * Each denial must look exactly like the answer for an object that does not exist (same status and
 * message), no answer to B may contain anything of A's (canary strings), and everything of A's reads
 * back the same afterwards. The matrix is keyed by OpenAPI operation: an operation added to the API
 * without an entry here (or in `noObjectId`, with the reason) fails the coverage test.
 *
 * Bearer capabilities are public by design and only checked to be narrow, never used by B as given: the
 * share link of a task A shared (spec 4.2) and its signed audio URL (while shared), A's signed export URL (one
 * file, 15 minutes), A's checkout reference (signed, one hour) and A's avatar URL (an <img> sends no token).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { UploadClient, type Session } from "../support/upload-client.ts";
import { bytes } from "../support/uploads.ts";
import { signatureHeader } from "../../src/billing/webhook-signature.ts";
import { manyLogins, manyRegistrations, manyRequestsPerToken } from "../support/limits.ts";

type Json = Record<string, any>;
type Reply = { status: number; text: string; body: any };
type Actor = { label: string; auth: string | null };
type Way = "path" | "path-spelling" | "query" | "body" | "storage-key" | "storage-url" | "share-link" | "checkout-reference" | "same-name" | "own-scope";
/** One (operation × way) entry; `check` runs once per actor and throws on anything but a clean denial. */
type Case = { op: string; way: Way; what: string; actors?: "b" | "anonymous" | "once"; check: (actor: Actor) => Promise<void> };

/** Operations that name no object of anyone's, so there is nothing of A's for B to point at. */
const noObjectId: Record<string, string> = {
  "GET /api/health": "public liveness probe, no object",
  "GET /api/ready": "public readiness probe: names dependencies, no user's object",
  "POST /api/auth/social-login":
    "exchanges an authorization code at the identity provider and names no object (not configured here: 422); that an unverified provider email never links to an existing account is test/social-login.e2e.test.ts's",
  "GET /api/uploads/formats": "a static list of supported formats, the same for every caller",
  "GET /v1/models": "a static list of the models served (OpenAI's names and the offered engines), the same for every caller",
  "GET /v1/models/{model}": "one entry of that static list, named by the model's public id, the same for every caller",
  "GET /v1/realtime":
    "a new live session of the caller's own: it names no object, and the task it becomes is the caller's (test/live/realtime-limits.int.test.ts)",
  "GET /api/user/export":
    "the caller's own data as a zip: it names no object, and that another account's tasks are never in it is test/data-export/data-export.e2e.test.ts's",
  "GET /api/transcription/engines": "the engines and languages this service offers, from its configuration, the same for every caller",
  "GET /api/session": "the caller's own session, named by its cookie alone (the session tests show a tampered or foreign cookie is 401)",
  "DELETE /api/session": "ends the caller's own session, named by its cookie alone; nothing of anyone else's can be named",
  "POST /api/session/social":
    "exchanges an authorization code at the identity provider, like /api/auth/social-login, and names no object (not configured here: 422)",
};

/** Routes the service serves outside its OpenAPI document: the embedded store's signed URLs. */
const outsideOpenApi = ["GET /storage/{key}", "HEAD /storage/{key}", "PUT /storage/{key}"];

const formats = ["txt", "srt", "vtt", "csv", "pdf", "docx"];
const ghostTask = 987_654_321;
const tag = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...bytes(64, 7)]);
const clip = bytes(4096, 3); // not decodable: the task made from it fails, which makes it retryable

let service: RunningService;
let media: ReturnType<typeof Bun.serve>;
let requests = 0;

async function call(
  auth: string | null,
  method: string,
  path: string,
  init: { json?: unknown; body?: RequestInit["body"]; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (auth) headers.authorization = `Bearer ${auth}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] = "application/json";
  }
  const url = /^https?:/.test(path) ? path : `${service.url}${path}`;
  requests++;
  const response = await fetch(url, { method, headers, body, redirect: "manual", signal: AbortSignal.timeout(10_000) });
  const text = method === "HEAD" ? "" : await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: a file, a page or an event stream
  }
  return { status: response.status, text, body: parsed };
}

async function ok(auth: string | null, method: string, path: string, init: Parameters<typeof call>[3] = {}, status = 200): Promise<any> {
  const reply = await call(auth, method, path, init);
  if (reply.status !== status) throw new Error(`${method} ${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return reply.body;
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 3000)} after ${timeoutMs} ms`);
    await Bun.sleep(40);
  }
}

const sha = async (auth: string | null, url: string) => {
  const response = await fetch(url.startsWith("http") ? url : `${service.url}${url}`, { headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  return `${response.status}:${new Bun.CryptoHasher("sha256").update(new Uint8Array(await response.arrayBuffer())).digest("hex")}`;
};

async function register(name: string, email: string): Promise<{ token: string; id: number; email: string; password: string }> {
  const password = `pw-${crypto.randomUUID()}`;
  const body = await ok(null, "POST", "/api/register", { json: { name, email, password, password_confirmation: password } }, 201);
  return { token: body.token, id: body.user.id, email, password };
}

/** Pays for Pro through the sandbox provider, as a customer would: the API needs a paid plan for API keys. */
async function buyPro(token: string): Promise<void> {
  const options = await ok(token, "GET", "/api/checkout/test");
  await ok(null, "POST", `${options.checkout_url}/complete`);
  await eventually(
    "plan",
    async () => (await ok(token, "GET", "/api/user")).subscription.plan_key,
    (plan) => plan === "pro",
  );
}

const settled = (status: string) => status === "finished" || status === "failed";
const waitSettled = (token: string, id: number) =>
  eventually(
    `task ${id}`,
    () => ok(token, "GET", `/api/tasks/${id}`),
    (t) => settled(t.status),
  );

/** Creates a task, waiting out the 3-tasks-in-progress limit (429) that earlier cases may still hold. */
async function createTask(auth: string, body: Json): Promise<Reply> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = await call(auth, "POST", "/api/tasks", { json: body });
    if (reply.status !== 429 || Date.now() > deadline) return reply;
    await Bun.sleep(50);
  }
}

async function upload(client: UploadClient, file: string, data: Uint8Array, complete: Json | null): Promise<{ session: Session; task: Json | null }> {
  const session = await client.sign(file, "audio/mpeg", data.byteLength);
  await client.putAll(session, new Blob([data]));
  if (!complete) return { session, task: null };
  const response = await client.complete(session, file, "audio/mpeg", data.byteLength, complete);
  if (response.status !== 201) throw new Error(`complete: ${response.status} ${await response.text()}`);
  return { session, task: ((await response.json()) as { task: Json }).task };
}

// ---- the world: A's resources, B's own controls -------------------------------------------------

type Owner = { token: string; id: number; email: string; password: string; key: string; keyId: string };
let A: Owner;
let B: Owner;
let bSecondToken = "";
const a = {
  folder: "",
  otherFolder: "",
  folderId: 0,
  transcribed: 0, // segments, in a folder, shared, pdf export ready
  uploaded: 0, // from a completed upload, failed: retryable, /audio has its bytes
  fetched: 0, // remote, its media fetched under media/<A>/
  completed: null as unknown as Session,
  open: null as unknown as Session,
  uploadKey: "",
  mediaKey: "",
  exportUrl: "",
  exportKey: "",
  avatarUrl: "",
  avatarKey: "",
  reference: "",
  notificationIds: [] as string[],
  webhookId: "",
  webhookSecret: "",
};
const b = { task: 0, folder: "", open: null as unknown as Session, exportUrl: "" };
let canaries: string[] = [];

beforeAll(async () => {
  media = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(clip, { headers: { "content-type": "audio/mpeg" } }) });
  service = await startServiceProcess((url) => ({
    PUBLIC_URL: url,
    ...manyRequestsPerToken,
    ...manyLogins,
    ...manyRegistrations,
    MEDIA_FETCH_ALLOW_LOOPBACK: "true",
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1",
  }));

  const accounts = await Promise.all([
    register(`Alice ${tag}`, `alice-${tag}@example.com`),
    register("Bob Intruder", `bob-${crypto.randomUUID().slice(0, 8)}@example.com`),
  ]);
  await Promise.all(accounts.map((account) => buyPro(account.token)));
  const [aKey, bKey] = await Promise.all(accounts.map((account) => ok(account.token, "POST", "/api/api-keys", { json: { name: "integration" } }, 201)));
  A = { ...accounts[0]!, key: aKey.key, keyId: aKey.id };
  B = { ...accounts[1]!, key: bKey.key, keyId: bKey.id };
  bSecondToken = (await ok(null, "POST", "/api/login", { json: { email: B.email, password: B.password } })).token;

  // A's folders and tasks.
  a.folder = `F${tag.slice(0, 8)}`;
  a.otherFolder = `G${tag.slice(0, 8)}`;
  a.folderId = (await ok(A.token, "POST", "/api/folders", { json: { name: a.folder } }, 201)).id;
  await ok(A.token, "POST", "/api/folders", { json: { name: a.otherFolder } }, 201);
  const segments = [
    { start: 0, end: 1500, text: `Alpha secret words ${tag} about the merger.`, speaker: "S1" },
    { start: 1500, end: 3000, text: `Second confidential line ${tag}.`, speaker: "S2" },
  ];
  a.transcribed = (
    await ok(A.token, "POST", "/api/tasks", { json: { disk: "objstore", name: `Board ${tag}`, path: `uploads/${A.id}/none/board.mp3`, segments } }, 201)
  ).id;
  const client = new UploadClient(service.url, A.token);
  const completed = await upload(client, "clip.mp3", clip, { name: `Upload ${tag}` });
  a.completed = completed.session;
  a.uploaded = completed.task!.id;
  a.uploadKey = completed.task!.path;
  a.open = (await upload(client, "pending.mp3", clip, null)).session;
  a.fetched = (
    await ok(A.token, "POST", "/api/tasks", { json: { disk: "remote", name: `Fetched ${tag}`, path: `http://127.0.0.1:${media.port}/talk.mp3` } }, 201)
  ).id;
  for (const id of [a.transcribed, a.uploaded, a.fetched]) await waitSettled(A.token, id);
  expect((await ok(A.token, "GET", `/api/tasks/${a.uploaded}`)).status).toBe("failed");

  const history = (await ok(A.token, "GET", `/api/tasks/${a.fetched}/history`)) as { type: string; data: Json }[];
  a.mediaKey = history.find((e) => e.type === "MediaFetched")?.data.path ?? "";
  expect(a.mediaKey).toStartWith(`media/${A.id}/`);

  await ok(A.token, "PATCH", `/api/tasks/${a.transcribed}`, { json: { folder: a.folder } });
  await ok(A.token, "GET", `/api/tasks/${a.transcribed}/share-url`);
  a.exportUrl = (
    await eventually(
      "A's pdf",
      () => call(A.token, "GET", `/api/tasks/${a.transcribed}/download/pdf`, { headers: { accept: "application/json" } }),
      (r) => r.status === 200,
    )
  ).body.url;
  a.exportKey = decodeURIComponent(new URL(a.exportUrl).pathname.replace(/^\/storage\//, ""));

  const form = new FormData();
  form.append("avatar", new File([png], "me.png", { type: "image/png" }));
  a.avatarUrl = (await ok(A.token, "PUT", "/api/user", { body: form })).avatar;
  a.avatarKey = `avatars/${new URL(a.avatarUrl).pathname.replace(/^\/avatars\//, "")}`;
  a.reference = (await ok(A.token, "GET", "/api/checkout/month")).reference;
  // A's webhook endpoint (on the media server, which answers 200) with one test delivery in its list.
  const hook = await ok(A.token, "POST", "/api/webhooks", { json: { url: `http://127.0.0.1:${media.port}/hook-${tag}` } }, 201);
  a.webhookId = hook.id;
  a.webhookSecret = hook.secret;
  await ok(A.token, "POST", `/api/webhooks/${a.webhookId}/test`);

  // A's notifications settle (all unread): plan changed, task finished, two failures, and "Export ready"
  // unless the worker made the pdf before it was asked for. Settled: the same on two reads 300 ms apart.
  const readNotes = () => ok(A.token, "GET", "/api/notifications") as Promise<{ id: string; title: string }[]>;
  await eventually(
    "A's notifications",
    readNotes,
    (list) => list.filter((n) => n.title === "Task failed").length === 2 && list.some((n) => n.title === "Task finished"),
  );
  let notes = await readNotes();
  for (let previous = ""; previous !== JSON.stringify(notes); notes = await readNotes()) {
    previous = JSON.stringify(notes);
    await Bun.sleep(300);
  }
  a.notificationIds = notes.map((n) => n.id);

  // B's own controls: a finished task, a folder, an open upload and a ready export of its own.
  b.task = (
    await ok(
      B.token,
      "POST",
      "/api/tasks",
      { json: { disk: "objstore", name: "Bob's own", path: `uploads/${B.id}/none/own.mp3`, segments: [{ start: 0, end: 1000, text: "bob speaking" }] } },
      201,
    )
  ).id;
  b.folder = "Bobfolder";
  await ok(B.token, "POST", "/api/folders", { json: { name: b.folder } }, 201);
  b.open = (await upload(new UploadClient(service.url, B.token), "mine.mp3", clip, null)).session;
  await waitSettled(B.token, b.task);
  b.exportUrl = (
    await eventually(
      "B's pdf",
      () => call(B.token, "GET", `/api/tasks/${b.task}/download/pdf`, { headers: { accept: "application/json" } }),
      (r) => r.status === 200,
    )
  ).body.url;

  canaries = [tag, A.email, A.key, A.keyId, ...a.notificationIds, a.webhookId, a.webhookSecret.slice("whsec_".length)];
}, 60_000);

afterAll(async () => {
  await service?.stop();
  media?.stop(true);
});

/** Everything of A's, read back by A (and the public views of it), for the before/after comparison. */
async function snapshotOfA(): Promise<Json> {
  const read = async (auth: string | null, path: string, headers: Record<string, string> = {}) => {
    const reply = await call(auth, "GET", path, { headers });
    return { status: reply.status, body: reply.body };
  };
  const tasks: Json = {};
  for (const id of [a.transcribed, a.uploaded, a.fetched]) {
    tasks[id] = {
      detail: await read(A.token, `/api/tasks/${id}`),
      history: await read(A.token, `/api/tasks/${id}/history`),
      share: (await read(null, `/share/tasks/${id}`, { accept: "application/json" })).status,
    };
  }
  const pdf = await call(A.token, "GET", `/api/tasks/${a.transcribed}/download/pdf`, { headers: { accept: "application/json" } });
  return {
    tasks,
    list: await read(A.token, "/api/tasks?per_page=100"),
    folders: await read(A.token, "/api/folders"),
    user: await read(A.token, "/api/user"),
    userByKey: await read(A.key, "/api/user"),
    apiKeys: await read(A.token, "/api/api-keys"),
    webhooks: await read(A.token, "/api/webhooks"),
    notifications: await read(A.token, "/api/notifications"),
    audio: await sha(A.token, `/api/tasks/${a.uploaded}/audio`),
    avatar: await sha(null, a.avatarUrl),
    export: { status: pdf.status, ready: pdf.body?.status, key: new URL(pdf.body?.url ?? "http://x/").pathname, file: await sha(null, a.exportUrl) },
    openUpload: (await call(A.token, "POST", "/api/uploads/sign-part", { json: { path: a.open.path, upload_id: a.open.upload_id, part_number: 1 } })).status,
  };
}

// ---- checks --------------------------------------------------------------------------------------

function must(condition: unknown, message: string): void {
  if (!condition) throw new Error(message);
}

function noLeak(reply: Reply, where: string): void {
  const found = canaries.find((canary) => reply.text.includes(canary));
  must(found === undefined, `${where}: ${reply.status} answer holds A's data (${found}): ${reply.text.slice(0, 200)}`);
}

const brief = (r: Reply) => `${r.status} ${r.text.slice(0, 200)}`;
const messageOf = (r: Reply) => JSON.stringify({ message: r.body?.message ?? null, errors: r.body?.errors ?? null });

/** B's request on A's object is refused with `expected`, exactly as for an object that does not exist. */
async function deniedLikeGhost(
  actor: Actor,
  method: string,
  path: string,
  ghostPath: string | null,
  init: Parameters<typeof call>[3] = {},
  expected = [404],
): Promise<Reply> {
  const reply = await call(actor.auth, method, path, init);
  noLeak(reply, `${method} ${path}`);
  must(expected.includes(reply.status), `${method} ${path}: ${brief(reply)} (expected ${expected.join(" or ")})`);
  if (ghostPath !== null) {
    const ghost = await call(actor.auth, method, ghostPath, init);
    must(
      ghost.status === reply.status && messageOf(ghost) === messageOf(reply),
      `${method} ${path}: ${brief(reply)} differs from a nonexistent object's ${brief(ghost)}`,
    );
  }
  return reply;
}

const taskIds = () => [a.transcribed, a.uploaded, a.fetched];
/** Where the embedded blob store keeps a key under DATA_DIR (for the file:// attempts). */
const onDiskPath = (key: string) => `${service.dataDir}/blobs/${key}`;
const spellings = (id: number) => [`0${id}`, `+${id}`, `${id}.0`, `${id}%20`, `%20${id}`, `${id}e0`];
const isApiKey = (actor: Actor) => actor.auth === B.key;

/** Cases for one `/api/tasks/{id}...` operation: every task of A's by path, other spellings, and query ids on B's own task. */
function taskPathCases(
  op: string,
  method: string,
  suffix: string,
  init: (actor: Actor) => Parameters<typeof call>[3] = () => ({}),
  ownQuery?: (reply: Reply) => void,
): Case[] {
  const cases: Case[] = [
    {
      op,
      way: "path",
      what: "each of A's tasks (transcribed, uploaded, fetched) by id",
      check: async (actor) => {
        for (const id of taskIds()) await deniedLikeGhost(actor, method, `/api/tasks/${id}${suffix}`, `/api/tasks/${ghostTask}${suffix}`, init(actor));
      },
    },
    {
      op,
      way: "path-spelling",
      what: "A's task id spelled otherwise (leading zero, sign, decimal, padding, exponent)",
      check: async (actor) => {
        for (const spelled of spellings(a.transcribed)) await deniedLikeGhost(actor, method, `/api/tasks/${spelled}${suffix}`, null, init(actor), [404, 422]);
      },
    },
  ];
  if (ownQuery) {
    cases.push({
      op,
      way: "query",
      what: "B's own task in the path, A's task and user ids in the query",
      check: async (actor) => {
        const reply = await call(
          actor.auth,
          method,
          `/api/tasks/${b.task}${suffix}?id=${a.transcribed}&task_id=${a.transcribed}&user_id=${A.id}&userId=${A.id}`,
          init(actor),
        );
        noLeak(reply, `${method} B's task with A's ids in the query`);
        ownQuery(reply);
      },
    });
  }
  return cases;
}

/** B creates a task of its own that names A's media; it must end failed, without A's data, and deleting it must leave A's file alone. */
async function taskOnForeignMedia(actor: Actor, disk: string, path: string): Promise<void> {
  const created = await createTask(actor.auth!, { disk, name: "Borrowed media", path });
  noLeak(created, `create ${disk} ${path}`);
  if (created.status !== 201) {
    must(created.status >= 400 && created.status < 500 && created.status !== 429, `create ${disk} ${path}: ${brief(created)}`);
    return;
  }
  const id = created.body.id as number;
  const task = await waitSettled(actor.auth!, id);
  must(
    task.status === "failed" && task.segments === null && task.summary === null,
    `B's task on ${path} ended ${task.status} with ${JSON.stringify(task.segments)?.slice(0, 100)}`,
  );
  // Exactly as for a key that holds nothing: A's file was never even read.
  if (disk === "objstore")
    must(task.failure_reason === "media not found in storage", `B's task on ${path} failed with "${task.failure_reason}", not as for a missing file`);
  const audio = await call(actor.auth, "GET", `/api/tasks/${id}/audio`);
  noLeak(audio, "audio of B's task");
  must(audio.status === 404, `B's /audio of a task naming ${path}: ${brief(audio)}`);
  const download = await call(actor.auth, "GET", `/api/tasks/${id}/download/txt`);
  must(download.status === 409, `B's export of a task naming ${path}: ${brief(download)}`);
  await ok(actor.auth, "DELETE", `/api/tasks/${id}`);
}

function buildMatrix(): Case[] {
  const ownDetail = (r: Reply) => must(r.status === 200 && r.body.id === b.task && r.body.name === "Bob's own", `B's own task: ${brief(r)}`);
  const _own200 = (r: Reply) => must(r.status === 200, `B's own: ${brief(r)}`);
  const own404 = (r: Reply) => must(r.status === 404, `B's own (no stored audio): ${brief(r)}`);
  const sessionOf = (s: Session) => ({ path: s.path, upload_id: s.upload_id });
  const completeOf = (s: Session) => ({ ...sessionOf(s), original_name: s.path.split("/").pop()!, content_type: "audio/mpeg", size: clip.byteLength });
  const ghostUpload = { path: `uploads/${B.id}/${"0".repeat(32)}/x.mp3`, upload_id: "0".repeat(32) };
  const tamperedReference = (reference: string, userId: number) => {
    const [payload, signature] = reference.split(".") as [string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    return `${Buffer.from(JSON.stringify({ ...claims, u: userId })).toString("base64url")}.${signature}`;
  };
  const storageUrl = (key: string, query = "") => `/storage/${key.split("/").map(encodeURIComponent).join("/")}${query}`;
  const bKey = (path: string) => `uploads/${B.id}/${path}`;

  return [
    // -- tasks by id in the path ------------------------------------------------------------------
    ...taskPathCases("GET /api/tasks/{id}", "GET", "", undefined, ownDetail),
    ...taskPathCases("PATCH /api/tasks/{id}", "PATCH", "", () => ({ json: { name: "Taken over", folder: null, quality: 1, text: "overwritten", index: 3 } })),
    ...taskPathCases("DELETE /api/tasks/{id}", "DELETE", ""),
    ...taskPathCases("PATCH /api/tasks/{id}/retry", "PATCH", "/retry"),
    ...taskPathCases("GET /api/tasks/{id}/share-url", "GET", "/share-url"),
    ...taskPathCases("DELETE /api/tasks/{id}/share-url", "DELETE", "/share-url"),
    ...taskPathCases("GET /api/tasks/{id}/history", "GET", "/history", undefined, (r) =>
      must(r.status === 200 && r.body.every((e: Json) => e.user_id === null || e.user_id === B.id), `B's history: ${brief(r)}`),
    ),
    ...taskPathCases("GET /api/tasks/{id}/audio", "GET", "/audio", () => ({ headers: { range: "bytes=0-99" } }), own404),
    ...taskPathCases("GET /api/tasks/{id}/audio-url", "GET", "/audio-url", undefined, own404),
    {
      op: "GET /api/tasks/{id}/audio/signed",
      way: "path",
      what: "each of A's tasks at a signed-audio URL B signed itself (A's user id, a far expiry, a guessed signature)",
      check: async (actor) => {
        const forged = `?user=${A.id}&expires=9999999999&signature=${"A".repeat(43)}`;
        for (const id of taskIds())
          await deniedLikeGhost(actor, "GET", `/api/tasks/${id}/audio/signed${forged}`, `/api/tasks/${ghostTask}/audio/signed${forged}`, {}, [403]);
      },
    },
    ...taskPathCases("GET /api/tasks/{id}/refresh-summary", "GET", "/refresh-summary"),
    ...taskPathCases("GET /api/tasks/{id}/events", "GET", "/events", () => ({ headers: { accept: "text/event-stream" } })),
    ...formats.flatMap((format) =>
      taskPathCases(
        "GET /api/tasks/{id}/download/{format}",
        "GET",
        `/download/${format}`,
        () => ({ headers: { accept: format === "pdf" || format === "docx" ? "application/json" : "*/*" } }),
        format === "txt" ? (r) => must(r.status === 200 && r.text.includes("bob speaking"), `B's txt: ${brief(r)}`) : undefined,
      ).map((c) => ({
        ...c,
        what: `${c.what}, ${format}`,
      })),
    ),
    // -- the public share page: A's unshared tasks are as absent as a nonexistent one -------------
    {
      op: "GET /share/tasks/{id}",
      way: "share-link",
      what: "share links of A's unshared tasks (A's shared one is public by design: the spec's share URL)",
      actors: "anonymous",
      check: async (actor) => {
        for (const id of [a.uploaded, a.fetched]) {
          for (const accept of ["application/json", "text/html"])
            await deniedLikeGhost(actor, "GET", `/share/tasks/${id}`, `/share/tasks/${ghostTask}`, { headers: { accept } });
        }
        for (const spelled of spellings(a.uploaded))
          await deniedLikeGhost(actor, "GET", `/share/tasks/${spelled}`, null, { headers: { accept: "application/json" } }, [404, 422]);
      },
    },
    {
      op: "GET /share/tasks/{id}",
      way: "share-link",
      what: "B's token or key on the share link of A's unshared task changes nothing",
      check: async (actor) => {
        await deniedLikeGhost(actor, "GET", `/share/tasks/${a.uploaded}`, `/share/tasks/${ghostTask}`, { headers: { accept: "application/json" } });
      },
    },
    {
      op: "GET /share/tasks/{id}/audio",
      way: "share-link",
      what: "each of A's tasks (shared or not) at a share-audio URL B made up (a far expiry, a guessed signature)",
      check: async (actor) => {
        const forged = `?expires=9999999999&signature=${"A".repeat(43)}`;
        for (const id of taskIds())
          await deniedLikeGhost(actor, "GET", `/share/tasks/${id}/audio${forged}`, `/share/tasks/${ghostTask}/audio${forged}`, {}, [403]);
        await deniedLikeGhost(actor, "GET", `/share/tasks/${a.uploaded}/audio`, `/share/tasks/${ghostTask}/audio`, { headers: { range: "bytes=0-99" } }, [403]);
      },
    },
    // -- tasks named in bodies and queries --------------------------------------------------------
    {
      op: "DELETE /api/tasks/bulk",
      way: "body",
      what: "ids of A's tasks (alone, and with a nonexistent one)",
      check: async (actor) => {
        for (const ids of [taskIds(), [...taskIds(), ghostTask], [a.transcribed, a.transcribed]]) {
          const reply = await call(actor.auth, "DELETE", "/api/tasks/bulk", { json: { ids } });
          noLeak(reply, "bulk delete");
          must(reply.status === 200 && reply.body.deleted_count === 0, `bulk delete of A's ids: ${brief(reply)}`);
        }
      },
    },
    {
      op: "PATCH /api/tasks/bulk/move",
      way: "body",
      what: "A's task ids into B's folder; A's folder name as the target; both",
      check: async (actor) => {
        const moved = await call(actor.auth, "PATCH", "/api/tasks/bulk/move", { json: { ids: taskIds(), folder: b.folder } });
        must(moved.status === 200 && moved.body.moved_count === 0, `move A's tasks into B's folder: ${brief(moved)}`);
        await deniedLikeGhost(actor, "PATCH", "/api/tasks/bulk/move", null, { json: { ids: [b.task], folder: a.folder } }, [422]);
        const ghost = await call(actor.auth, "PATCH", "/api/tasks/bulk/move", { json: { ids: [b.task], folder: "Nofolder9" } });
        const intoA = await call(actor.auth, "PATCH", "/api/tasks/bulk/move", { json: { ids: [...taskIds(), b.task], folder: a.folder } });
        must(intoA.status === ghost.status && messageOf(intoA) === messageOf(ghost), `A's folder as target: ${brief(intoA)} vs nonexistent ${brief(ghost)}`);
      },
    },
    {
      op: "PATCH /api/tasks/{id}",
      way: "body",
      what: "B's own task moved into A's folder by name, or by A's folder id / user id in extra fields",
      check: async (actor) => {
        const intoA = await call(actor.auth, "PATCH", `/api/tasks/${b.task}`, { json: { folder: a.folder } });
        const ghost = await call(actor.auth, "PATCH", `/api/tasks/${b.task}`, { json: { folder: "Nofolder9" } });
        must(intoA.status === 422 && messageOf(intoA) === messageOf(ghost), `B's task into A's folder: ${brief(intoA)} vs ${brief(ghost)}`);
        const extra = await call(actor.auth, "PATCH", `/api/tasks/${b.task}`, {
          json: { folder_id: a.folderId, user_id: A.id, userId: A.id, id: a.transcribed },
        });
        noLeak(extra, "PATCH with foreign ids in the body");
        must(extra.status === 422 || (extra.status === 200 && extra.body.id === b.task && extra.body.folder === null), `extra ids: ${brief(extra)}`);
      },
    },
    {
      op: "GET /api/tasks",
      way: "query",
      what: "A's folder name, A's task name as search, A's user and task ids",
      check: async (actor) => {
        const list = await call(actor.auth, "GET", `/api/tasks?per_page=100&user_id=${A.id}&userId=${A.id}&id=${a.transcribed}`);
        noLeak(list, "list");
        must(list.status === 200 && list.body.data.every((t: Json) => !taskIds().includes(t.id)), `B's list: ${brief(list)}`);
        const search = await call(actor.auth, "GET", `/api/tasks?search=${encodeURIComponent(`Board ${tag}`)}`);
        must(search.status === 200 && search.body.total === 0 && search.body.data.length === 0, `search for A's name: ${brief(search)}`);
        for (const status of ["finished", "failed", "all"]) {
          const byStatus = await call(actor.auth, "GET", `/api/tasks?status=${status}&per_page=100`);
          noLeak(byStatus, `status=${status}`);
        }
        await deniedLikeGhost(actor, "GET", `/api/tasks?folder=${a.folder}`, "/api/tasks?folder=Nofolder9", {}, [422]);
        await deniedLikeGhost(actor, "GET", `/api/tasks?folder=${a.folder.toLowerCase()}`, "/api/tasks?folder=Nofolder9", {}, [422]);
      },
    },
    {
      op: "GET /api/search",
      way: "query",
      what: "words, a phrase and a prefix of A's transcripts and A's task name, with A's user and task ids beside them",
      check: async (actor) => {
        for (const q of [tag, `"secret words ${tag}"`, `${tag.slice(0, 6)}*`, "merger confidential", `Board ${tag}`]) {
          const reply = await call(
            actor.auth,
            "GET",
            `/api/search?q=${encodeURIComponent(q)}&per_page=100&user_id=${A.id}&userId=${A.id}&task_id=${a.transcribed}`,
          );
          noLeak(reply, `search ${q}`);
          must(reply.status === 200 && reply.body.total === 0 && reply.body.data.length === 0, `B's search for ${q}: ${brief(reply)}`);
        }
        // B's own transcript is found: the search answers, it just never reaches A's.
        const own = await call(actor.auth, "GET", "/api/search?q=bob");
        must(own.status === 200 && own.body.data.every((r: Json) => !taskIds().includes(r.task_id as number)), `B's own search: ${brief(own)}`);
      },
    },
    {
      op: "POST /api/tasks",
      way: "body",
      what: "A's user id and folder in extra body fields: the task is B's, in no folder",
      check: async (actor) => {
        const created = await createTask(actor.auth!, {
          disk: "objstore",
          name: "Mine",
          path: bKey("none/x.mp3"),
          segments: [{ start: 0, end: 10, text: "b" }],
          user_id: A.id,
          userId: A.id,
          folder: a.folder,
          folder_id: a.folderId,
        });
        noLeak(created, "create with extra ids");
        if (created.status !== 201) return must(created.status === 422, `create with extra ids: ${brief(created)}`);
        const task = await ok(actor.auth, "GET", `/api/tasks/${created.body.id}`);
        must(task.folder === null, `B's task landed in folder ${task.folder}`);
        await waitSettled(actor.auth!, task.id);
        await ok(actor.auth, "DELETE", `/api/tasks/${task.id}`);
      },
    },
    {
      op: "POST /api/tasks",
      way: "storage-key",
      what: "objstore paths naming A's upload, in-progress upload, fetched media, export, avatar, and B-prefixed traversals to them",
      check: async (actor) => {
        const [, , uploadId, file] = a.uploadKey.split("/");
        const paths = [
          a.uploadKey,
          a.open.path,
          a.mediaKey,
          a.exportKey,
          a.avatarKey,
          bKey(`../${A.id}/${uploadId}/${file}`),
          bKey(`x/../../${A.id}/${uploadId}/${file}`),
          bKey(`%2e%2e/${A.id}/${uploadId}/${file}`),
          `/${a.uploadKey}`,
          `./${a.uploadKey}`,
          `uploads//${A.id}/${uploadId}/${file}`,
        ];
        for (const path of paths) await taskOnForeignMedia(actor, "objstore", path);
      },
    },
    {
      op: "POST /api/tasks",
      way: "storage-url",
      what: "remote and video-link tasks fetching A's file from the service itself (unsigned storage URL, /audio, a B-signed URL re-pointed at A's key) or from its disk (file://)",
      check: async (actor) => {
        const bSigned = new URL(b.exportUrl);
        const onDisk = `file://${onDiskPath(a.uploadKey)}`;
        for (const url of [
          `${service.url}${storageUrl(a.uploadKey)}`,
          `${service.url}/api/tasks/${a.uploaded}/audio`,
          `${service.url}${storageUrl(a.exportKey, bSigned.search)}`,
          onDisk,
        ]) {
          await taskOnForeignMedia(actor, "remote", url);
        }
        for (const url of [onDisk, `${service.url}${storageUrl(a.uploadKey)}`]) await taskOnForeignMedia(actor, "videolink", url);
      },
    },
    // -- the storage routes the embedded blob store signs -----------------------------------------
    {
      op: "GET /storage/{key}",
      way: "storage-url",
      what: "A's upload, media, export and avatar keys unsigned, with B's signature, and traversals from B's prefix",
      actors: "anonymous",
      check: async (actor) => {
        const bSigned = new URL(b.exportUrl).search;
        for (const key of [a.uploadKey, a.mediaKey, a.exportKey, a.avatarKey]) {
          for (const query of ["", bSigned, `${bSigned}&name=x.pdf`]) await deniedLikeGhost(actor, "GET", storageUrl(key, query), null, {}, [403]);
        }
        // A's own signed export URL is a bearer capability for that one file (15 minutes): moved onto A's
        // other files, or with another download name, it opens nothing.
        const aSigned = new URL(a.exportUrl).searchParams;
        for (const key of [a.uploadKey, a.mediaKey, a.avatarKey]) await deniedLikeGhost(actor, "GET", storageUrl(key, `?${aSigned}`), null, {}, [403]);
        const renamed = new URLSearchParams(aSigned);
        renamed.set("name", "other.pdf");
        await deniedLikeGhost(actor, "GET", storageUrl(a.exportKey, `?${renamed}`), null, {}, [403]);
        for (const raw of [
          `uploads%2F${B.id}%2F..%2F${A.id}%2F${a.uploadKey.split("/").slice(2).join("%2F")}`,
          `uploads/${B.id}/%2e%2e/${a.uploadKey.split("/").slice(1).join("/")}`,
        ]) {
          await deniedLikeGhost(actor, "GET", `/storage/${raw}${bSigned}`, null, {}, [400, 403, 404]);
        }
      },
    },
    {
      op: "HEAD /storage/{key}",
      way: "storage-url",
      what: "A's keys unsigned and with B's signature",
      actors: "anonymous",
      check: async (actor) => {
        for (const key of [a.uploadKey, a.exportKey])
          for (const query of ["", new URL(b.exportUrl).search]) await deniedLikeGhost(actor, "HEAD", storageUrl(key, query), null, {}, [403]);
      },
    },
    {
      op: "PUT /storage/{key}",
      way: "storage-url",
      what: "a part into A's open upload: unsigned, and with B's part signature moved onto A's key",
      check: async (actor) => {
        const signed = await ok(B.token, "POST", "/api/uploads/sign-part", { json: { ...sessionOf(b.open), part_number: 1 } });
        const query = new URL(signed.url).search;
        for (const q of ["", query, query.replace(b.open.upload_id, a.open.upload_id)]) {
          await deniedLikeGhost(actor, "PUT", storageUrl(a.open.path, q), null, { body: clip, headers: signed.headers }, [403]);
        }
      },
    },
    // -- uploads: A's sessions named in bodies ----------------------------------------------------
    ...(["sign-part", "complete", "abort"] as const).map(
      (step): Case => ({
        op: `POST /api/uploads/${step}`,
        way: "body",
        what: "A's open and completed upload (path + upload_id), and A's upload id with B's path",
        check: async (actor) => {
          const body = (s: Session) => (step === "sign-part" ? { ...sessionOf(s), part_number: 1 } : step === "complete" ? completeOf(s) : sessionOf(s));
          const ghost =
            step === "sign-part"
              ? { ...ghostUpload, part_number: 1 }
              : step === "complete"
                ? { ...ghostUpload, original_name: "x.mp3", content_type: "audio/mpeg", size: clip.byteLength }
                : ghostUpload;
          for (const session of [a.open, a.completed, { ...a.open, path: b.open.path }]) {
            const reply = await call(actor.auth, "POST", `/api/uploads/${step}`, { json: body(session) });
            const nothing = await call(actor.auth, "POST", `/api/uploads/${step}`, { json: ghost });
            noLeak(reply, step);
            must(reply.status === 404 && messageOf(reply) === messageOf(nothing), `${step} of A's upload: ${brief(reply)} vs ${brief(nothing)}`);
          }
        },
      }),
    ),
    ...(["sign-part", "complete", "abort"] as const).map(
      (step): Case => ({
        op: `POST /api/uploads/${step}`,
        way: "storage-key",
        what: "B's own upload id with A's upload key as its path",
        check: async (actor) => {
          const json = {
            upload_id: b.open.upload_id,
            path: a.open.path,
            part_number: 1,
            original_name: "mine.mp3",
            content_type: "audio/mpeg",
            size: clip.byteLength,
          };
          const reply = await call(actor.auth, "POST", `/api/uploads/${step}`, { json });
          const ghost = await call(actor.auth, "POST", `/api/uploads/${step}`, { json: { ...json, path: bKey("elsewhere/x.mp3") } });
          noLeak(reply, step);
          must(reply.status === 422 && messageOf(reply) === messageOf(ghost), `${step} with A's key: ${brief(reply)} vs ${brief(ghost)}`);
        },
      }),
    ),
    {
      op: "POST /api/uploads/sign",
      way: "body",
      what: "A's path, upload id and user id in extra fields: the session is B's, under B's prefix",
      check: async (actor) => {
        const reply = await call(actor.auth, "POST", "/api/uploads/sign", {
          json: { file: "x.mp3", content_type: "audio/mpeg", size: 10, ...sessionOf(a.open), user_id: A.id, key: a.open.path },
        });
        must(
          reply.status === 200 && reply.body.path.startsWith(`uploads/${B.id}/`) && reply.body.upload_id !== a.open.upload_id,
          `sign with A's ids: ${brief(reply)}`,
        );
        await ok(actor.auth, "POST", "/api/uploads/abort", { json: { path: reply.body.path, upload_id: reply.body.upload_id } });
      },
    },
    {
      op: "POST /v1/audio/transcriptions",
      way: "body",
      what: "A's user id, task id and media key in extra form fields: nothing of A's is read or answered (a login token is refused, a key gets its own 400)",
      check: async (actor) => {
        const form = new FormData();
        form.append("file", new Blob([new TextEncoder().encode("not audio ".repeat(50))]), "x.mp3");
        form.append("model", "whisper-1");
        const foreign: [string, string][] = [
          ["user_id", String(A.id)],
          ["task_id", String(a.transcribed)],
          ["path", a.uploadKey],
          ["disk", "objstore"],
        ];
        for (const [name, value] of foreign) form.append(name, value);
        const reply = await call(actor.auth, "POST", "/v1/audio/transcriptions", { body: form });
        noLeak(reply, "OpenAI-compatible transcription with A's ids");
        must(isApiKey(actor) ? reply.status === 400 && reply.body.error.param === "file" : reply.status === 403, `with A's ids: ${brief(reply)}`);
      },
    },
    // -- folders ----------------------------------------------------------------------------------
    {
      op: "PATCH /api/folders/{name}",
      way: "path",
      what: "A's folder by name (as written, other case, encoded)",
      check: async (actor) => {
        for (const name of [a.folder, a.folder.toLowerCase(), encodeURIComponent(` ${a.folder}`)])
          await deniedLikeGhost(actor, "PATCH", `/api/folders/${name}`, "/api/folders/Nofolder9", { json: { name: "Stolen" } });
      },
    },
    {
      op: "DELETE /api/folders/{name}",
      way: "path",
      what: "A's folders by name (as written, other case)",
      check: async (actor) => {
        for (const name of [a.folder, a.otherFolder, a.folder.toUpperCase()])
          await deniedLikeGhost(actor, "DELETE", `/api/folders/${name}`, "/api/folders/Nofolder9");
      },
    },
    {
      op: "POST /api/folders",
      way: "same-name",
      what: "B creates, renames and deletes a folder named like A's: names are per user",
      check: async (actor) => {
        await ok(actor.auth, "POST", "/api/folders", { json: { name: a.folder, user_id: A.id } }, 201);
        await ok(actor.auth, "PATCH", `/api/folders/${a.folder}`, { json: { name: "Bsrenamed" } });
        await ok(actor.auth, "DELETE", "/api/folders/Bsrenamed");
      },
    },
    {
      op: "PATCH /api/folders/{name}",
      way: "body",
      what: "B renames its own folder to A's folder name: allowed, and A's folder stays",
      check: async (actor) => {
        await ok(actor.auth, "POST", "/api/folders", { json: { name: "Bstemp" } }, 201);
        await ok(actor.auth, "PATCH", "/api/folders/Bstemp", { json: { name: a.otherFolder } });
        await ok(actor.auth, "DELETE", `/api/folders/${a.otherFolder}`);
      },
    },
    {
      op: "GET /api/folders",
      way: "own-scope",
      what: "B's folder list holds none of A's folders or counts",
      check: async (actor) => {
        const reply = await call(actor.auth, "GET", `/api/folders?user_id=${A.id}`);
        must(reply.status === 200 && reply.body.folders.every((f: Json) => f.id !== a.folderId && f.name !== a.folder), `B's folders: ${brief(reply)}`);
      },
    },
    // -- account, keys, notifications, checkout ---------------------------------------------------
    {
      op: "GET /api/user",
      way: "query",
      what: "A's user id in the query: B's own account",
      check: async (actor) => {
        const reply = await call(actor.auth, "GET", `/api/user?id=${A.id}&user_id=${A.id}`);
        noLeak(reply, "user");
        must(reply.status === 200 && reply.body.id === B.id, `user: ${brief(reply)}`);
      },
    },
    {
      op: "PUT /api/user",
      way: "body",
      what: "A's email, A's id in extra fields (JSON and multipart with an avatar)",
      check: async (actor) => {
        const taken = await call(actor.auth, "PUT", "/api/user", { json: { email: A.email.toUpperCase() } });
        const takenExact = await call(actor.auth, "PUT", "/api/user", { json: { email: A.email } });
        must(taken.status === 422 && takenExact.status === 422, `B takes A's email: ${brief(taken)} / ${brief(takenExact)}`);
        const renamed = await call(actor.auth, "PUT", "/api/user", { json: { name: "Bob Intruder", id: A.id, user_id: A.id } });
        must(renamed.status === 200 && renamed.body.id === B.id, `PUT with A's id: ${brief(renamed)}`);
        const form = new FormData();
        form.append("avatar", new File([png], "x.png", { type: "image/png" }));
        form.append("user_id", String(A.id));
        form.append("id", String(A.id));
        const avatar = await call(actor.auth, "PUT", "/api/user", { body: form });
        must(
          avatar.status === 200 && avatar.body.id === B.id && new URL(avatar.body.avatar).pathname.startsWith(`/avatars/${B.id}/`),
          `avatar with A's id: ${brief(avatar)}`,
        );
      },
    },
    {
      op: "DELETE /api/user",
      way: "body",
      what: "A's id in the query and body, with a password that is not B's: refused (403), and A's account stays",
      check: async (actor) => {
        const reply = await call(actor.auth, "DELETE", `/api/user?id=${A.id}&user_id=${A.id}`, {
          json: { password: "not B's password", id: A.id, user_id: A.id },
        });
        noLeak(reply, "erase");
        must(reply.status === 403, `DELETE /api/user with A's id: ${brief(reply)}`);
      },
    },
    {
      op: "GET /avatars/{userId}/{file}",
      way: "path-spelling",
      what: "A's avatar file under B's id, and traversals from B's folder (A's own URL is public by design)",
      actors: "anonymous",
      check: async (actor) => {
        const file = a.avatarKey.split("/").pop()!;
        for (const path of [
          `/avatars/${B.id}/${file}`,
          `/avatars/${B.id}/..%2F${A.id}%2F${file}`,
          `/avatars/${B.id}%2F..%2F${A.id}/${file}`,
          `/avatars/0${A.id}x/${file}`,
        ]) {
          await deniedLikeGhost(actor, "GET", path, null, {}, [404]);
        }
        // The generated placeholder is public too (an <img> sends no token): it shows initials, nothing more.
        const placeholder = await call(actor.auth, "GET", `/avatars/${A.id}/default.svg`);
        noLeak(placeholder, "A's placeholder avatar");
      },
    },
    {
      op: "DELETE /api/api-keys/{id}",
      way: "path",
      what: "A's API key id (B's key may not manage keys at all: 403)",
      check: async (actor) => {
        await deniedLikeGhost(actor, "DELETE", `/api/api-keys/${A.keyId}`, `/api/api-keys/${crypto.randomUUID()}`, {}, isApiKey(actor) ? [403] : [404]);
      },
    },
    {
      op: "GET /api/api-keys",
      way: "own-scope",
      what: "B's key list holds none of A's keys",
      check: async (actor) => {
        const reply = await call(actor.auth, "GET", `/api/api-keys?user_id=${A.id}`);
        noLeak(reply, "api keys");
        must(isApiKey(actor) ? reply.status === 403 : reply.status === 200 && reply.body.every((k: Json) => k.id !== A.keyId), `B's keys: ${brief(reply)}`);
      },
    },
    {
      op: "POST /api/api-keys",
      way: "body",
      what: "A's user id in the body: the key is B's (then revoked)",
      check: async (actor) => {
        const reply = await call(actor.auth, "POST", "/api/api-keys", { json: { name: "extra", user_id: A.id, userId: A.id } });
        if (isApiKey(actor)) return must(reply.status === 403, `key minting with a key: ${brief(reply)}`);
        must(reply.status === 201, `create key: ${brief(reply)}`);
        const me = await ok(reply.body.key, "GET", "/api/user");
        must(me.id === B.id, `the new key authenticates as ${me.id}`);
        await ok(actor.auth, "DELETE", `/api/api-keys/${reply.body.id}`);
      },
    },
    // -- webhooks: endpoints by id in the path, B's own list and registrations -----------------------
    ...(
      [
        ["DELETE /api/webhooks/{id}", "DELETE", ""],
        ["GET /api/webhooks/{id}/deliveries", "GET", "/deliveries"],
        ["POST /api/webhooks/{id}/test", "POST", "/test"],
        ["POST /api/webhooks/{id}/enable", "POST", "/enable"],
      ] as const
    ).flatMap(([op, method, suffix]): Case[] => [
      {
        op,
        way: "path",
        what: "A's webhook endpoint id",
        check: async (actor) => {
          await deniedLikeGhost(actor, method, `/api/webhooks/${a.webhookId}${suffix}`, `/api/webhooks/${crypto.randomUUID()}${suffix}`);
        },
      },
      {
        op,
        way: "path-spelling",
        what: "A's webhook id spelled otherwise (upper case, padded, braced)",
        check: async (actor) => {
          for (const spelled of [a.webhookId.toUpperCase(), `%20${a.webhookId}`, `${a.webhookId}%20`, `{${a.webhookId}}`])
            await deniedLikeGhost(actor, method, `/api/webhooks/${spelled}${suffix}`, null, {}, [404, 422]);
        },
      },
    ]),
    {
      op: "GET /api/webhooks",
      way: "own-scope",
      what: "B's endpoint list holds none of A's, A's user id in the query",
      check: async (actor) => {
        const reply = await call(actor.auth, "GET", `/api/webhooks?user_id=${A.id}&userId=${A.id}`);
        noLeak(reply, "webhooks");
        must(reply.status === 200 && reply.body.every((w: Json) => w.id !== a.webhookId), `B's webhooks: ${brief(reply)}`);
      },
    },
    {
      op: "POST /api/webhooks",
      way: "body",
      what: "A's user id and endpoint id in the body: the endpoint is B's (then deleted)",
      check: async (actor) => {
        const json = { url: `http://127.0.0.1:${media.port}/b-hook`, user_id: A.id, userId: A.id, id: a.webhookId };
        const reply = await call(actor.auth, "POST", "/api/webhooks", { json });
        noLeak(reply, "register webhook");
        must(reply.status === 201 && reply.body.id !== a.webhookId, `B's webhook: ${brief(reply)}`);
        const mine = await ok(actor.auth, "GET", "/api/webhooks");
        must(
          mine.some((w: Json) => w.id === reply.body.id),
          `B's new endpoint is not in B's list: ${JSON.stringify(mine)}`,
        );
        await ok(actor.auth, "DELETE", `/api/webhooks/${reply.body.id}`);
      },
    },
    {
      op: "GET /api/notifications",
      way: "own-scope",
      what: "B's notifications hold none of A's",
      check: async (actor) => {
        const reply = await call(actor.auth, "GET", `/api/notifications?user_id=${A.id}`);
        noLeak(reply, "notifications");
        must(reply.status === 200 && reply.body.every((n: Json) => !a.notificationIds.includes(n.id)), `B's notifications: ${brief(reply)}`);
      },
    },
    {
      op: "POST /api/notifications/mark-all-as-read",
      way: "own-scope",
      what: "marks B's only: A's stay unread (checked in the snapshot)",
      check: async (actor) => {
        const reply = await call(actor.auth, "POST", "/api/notifications/mark-all-as-read", { json: { user_id: A.id, ids: a.notificationIds } });
        must(reply.status === 200, `mark read: ${brief(reply)}`);
      },
    },
    {
      op: "GET /api/checkout/{plan}",
      way: "own-scope",
      what: "the checkout names B, whatever the query says",
      check: async (actor) => {
        const reply = await call(actor.auth, "GET", `/api/checkout/month?user_id=${A.id}&customer=${A.id}`);
        noLeak(reply, "checkout");
        const claims = JSON.parse(Buffer.from(String(reply.body?.reference).split(".")[0]!, "base64url").toString());
        must(reply.status === 200 && reply.body.customer.id === B.id && claims.u === B.id, `checkout: ${brief(reply)}`);
      },
    },
    {
      op: "GET /sandbox/checkout/{reference}",
      way: "checkout-reference",
      what: "B's reference re-pointed at A, and A's reference re-signed by nobody (A's own reference is a capability)",
      actors: "anonymous",
      check: async (actor) => {
        const mine = (await ok(B.token, "GET", "/api/checkout/month")).reference as string;
        for (const reference of [tamperedReference(mine, A.id), tamperedReference(a.reference, A.id).replace(/.$/, (c) => (c === "A" ? "B" : "A"))]) {
          await deniedLikeGhost(actor, "GET", `/sandbox/checkout/${reference}`, "/sandbox/checkout/nothing.AAAA", {}, [404]);
        }
      },
    },
    {
      op: "POST /sandbox/checkout/{reference}/complete",
      way: "checkout-reference",
      what: "paying B's reference re-pointed at A",
      actors: "anonymous",
      check: async (actor) => {
        const mine = (await ok(B.token, "GET", "/api/checkout/year")).reference as string;
        await deniedLikeGhost(
          actor,
          "POST",
          `/sandbox/checkout/${tamperedReference(mine, A.id)}/complete`,
          "/sandbox/checkout/nothing.AAAA/complete",
          {},
          [404],
        );
      },
    },
    {
      op: "POST /api/webhooks/sandbox",
      way: "body",
      what: "a checkout.completed naming A through a re-pointed reference: unsigned, and signed with a guess",
      actors: "anonymous",
      check: async (actor) => {
        const mine = (await ok(B.token, "GET", "/api/checkout/year")).reference as string;
        const body = JSON.stringify({
          id: `evt_${tag}`,
          type: "checkout.completed",
          created: Math.floor(Date.now() / 1000),
          data: { reference: tamperedReference(mine, A.id), plan: "year", amount: 15_000, currency: "USD" },
        });
        const unsigned = await call(actor.auth, "POST", "/api/webhooks/sandbox", { body, headers: { "content-type": "application/json" } });
        must(unsigned.status === 400, `unsigned webhook: ${brief(unsigned)}`);
        const guessed = await call(actor.auth, "POST", "/api/webhooks/sandbox", {
          body,
          headers: { "content-type": "application/json", [signatureHeader]: `t=${Math.floor(Date.now() / 1000)},v1=${"ab".repeat(32)}` },
        });
        must(guessed.status === 401, `guessed signature: ${brief(guessed)}`);
      },
    },
    // -- authentication: A's identity named in bodies ---------------------------------------------
    {
      op: "POST /api/login",
      way: "body",
      what: "A's email with B's password",
      actors: "anonymous",
      check: async (actor) => {
        const reply = await call(actor.auth, "POST", "/api/login", { json: { email: A.email, password: B.password } });
        const ghost = await call(actor.auth, "POST", "/api/login", { json: { email: `nobody-${tag.slice(0, 4)}x@example.com`, password: B.password } });
        must(reply.status === 401 && messageOf(reply) === messageOf(ghost) && !reply.text.includes("token"), `login as A: ${brief(reply)} vs ${brief(ghost)}`);
      },
    },
    {
      op: "POST /api/register",
      way: "body",
      what: "A's email (other case): refused, A's account untouched",
      actors: "anonymous",
      check: async (actor) => {
        const reply = await call(actor.auth, "POST", "/api/register", {
          json: { name: "Copy", email: A.email.toUpperCase(), password: "pw-123456", password_confirmation: "pw-123456" },
        });
        noLeak(reply, "register");
        must(reply.status === 422, `register with A's email: ${brief(reply)}`);
      },
    },
    {
      op: "POST /api/session",
      way: "body",
      what: "A's email with B's password: the same refusal as an unknown address, and no session",
      actors: "anonymous",
      check: async (actor) => {
        // A sign-in from the app's own page (the session routes refuse other origins before anything else).
        const headers = { origin: new URL(service.url).origin };
        const reply = await call(actor.auth, "POST", "/api/session", { json: { email: A.email, password: B.password }, headers });
        const ghost = await call(actor.auth, "POST", "/api/session", {
          json: { email: `nobody-${tag.slice(0, 4)}y@example.com`, password: B.password },
          headers,
        });
        must(reply.status === 401 && messageOf(reply) === messageOf(ghost) && !reply.text.includes("scs_"), `session as A: ${brief(reply)} vs ${brief(ghost)}`);
      },
    },
    {
      op: "POST /api/session/register",
      way: "body",
      what: "A's email (other case): refused, A's account untouched",
      actors: "anonymous",
      check: async (actor) => {
        const reply = await call(actor.auth, "POST", "/api/session/register", {
          json: { name: "Copy", email: A.email.toUpperCase(), password: "pw-123456", password_confirmation: "pw-123456" },
          headers: { origin: new URL(service.url).origin },
        });
        noLeak(reply, "session register");
        must(reply.status === 422, `session register with A's email: ${brief(reply)}`);
      },
    },
    {
      op: "POST /api/logout",
      way: "own-scope",
      what: "B's logout (with A's token in the body) revokes only B's own token",
      actors: "once",
      check: async () => {
        const reply = await call(bSecondToken, "POST", "/api/logout", { json: { token: A.token, token_id: A.keyId } });
        must(reply.status === 204, `logout: ${brief(reply)}`);
        must((await call(bSecondToken, "GET", "/api/user")).status === 401, "B's logged-out token still works");
        must((await call(A.token, "GET", "/api/user")).status === 200, "A's token stopped working");
      },
    },
  ];
}

// ---- the tests -----------------------------------------------------------------------------------

let before: Json;

describe("BOLA: user B against every operation on user A's objects (service process, HTTP)", () => {
  test("every operation of the OpenAPI document is in the matrix or names no object", async () => {
    const doc = (await ok(null, "GET", "/swagger/json")) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    const matrix = buildMatrix();
    const covered = new Set(matrix.map((c) => c.op));
    expect(operations.length).toBeGreaterThan(35);
    expect(operations.filter((op) => !covered.has(op) && !(op in noObjectId))).toEqual([]);
    expect([...covered].filter((op) => !operations.includes(op) && !outsideOpenApi.includes(op))).toEqual([]);
    expect(Object.keys(noObjectId).filter((op) => !operations.includes(op))).toEqual([]);
  });

  test("A's objects are real: A reads each of them", async () => {
    for (const id of taskIds()) expect((await call(A.token, "GET", `/api/tasks/${id}`)).status).toBe(200);
    const detail = await ok(A.token, "GET", `/api/tasks/${a.transcribed}`);
    expect(detail).toMatchObject({
      status: "finished",
      folder: a.folder,
      segments: [expect.objectContaining({ text: expect.stringContaining(tag) }), expect.anything()],
    });
    expect(detail.summary).toBeString();
    expect((await call(A.token, "GET", `/api/tasks/${a.uploaded}/audio`)).status).toBe(200);
    for (const key of [a.uploadKey, a.mediaKey, a.exportKey, a.avatarKey]) expect(await Bun.file(onDiskPath(key)).exists()).toBe(true);
    expect((await call(A.token, "GET", `/api/tasks/${a.transcribed}/download/txt`)).text).toContain(tag);
    expect((await call(null, "GET", a.exportUrl)).status).toBe(200);
    expect((await call(null, "GET", `/share/tasks/${a.transcribed}`, { headers: { accept: "application/json" } })).status).toBe(200);
    expect((await call(A.key, "GET", "/api/user")).body.id).toBe(A.id);
    before = await snapshotOfA();
    expect(before.openUpload).toBe(200);
    expect(before.notifications.body.length).toBeGreaterThanOrEqual(4);
    expect(before.notifications.body.every((n: Json) => n.read_at === null)).toBe(true);
  });

  test("B (login token, API key, no credential on public routes) is refused everywhere, like for an object that does not exist", async () => {
    const bActors: Actor[] = [
      { label: "B token", auth: B.token },
      { label: "B API key", auth: B.key },
    ];
    const anonymous: Actor[] = [{ label: "anonymous", auth: null }, ...bActors];
    // Built here, not taken from the coverage test above: run alone (-t), this test checks every case all the same.
    const matrix = buildMatrix();
    expect(matrix.length).toBeGreaterThan(0);
    const failures: string[] = [];
    const sent = requests;
    let checks = 0;
    for (const entry of matrix) {
      for (const actor of entry.actors === "anonymous" ? anonymous : entry.actors === "once" ? [bActors[0]!] : bActors) {
        checks++;
        try {
          await entry.check(actor);
        } catch (error) {
          failures.push(`${entry.op} [${entry.way}] ${entry.what} as ${actor.label}: ${(error as Error).message}`);
        }
      }
    }
    const pairs = new Set(matrix.map((c) => `${c.op} × ${c.way}`));
    console.log(
      `BOLA matrix: ${pairs.size} (operation × way) pairs over ${new Set(matrix.map((c) => c.op)).size} operations, ${matrix.length} cases, ${checks} case runs (per actor), ${requests - sent} requests`,
    );
    expect(failures).toEqual([]);
  }, 60_000);

  test("A's objects read back unchanged, and A's credentials still work", async () => {
    // B deleted tasks that named A's files; the task-media worker handles deletions after the fact. So first wait
    // until it has handled every deletion in the log (read as an analyst does, `bun run events`), counted in
    // /metrics: a file it was going to remove would be gone by then.
    const deletions = (await runCli("events", ["--type", "TaskDeleted"], { DATA_DIR: service.dataDir })).stdout.trim().split("\n").filter(Boolean).length;
    expect(deletions).toBeGreaterThan(0);
    await eventually(
      "the task-media worker's handled deletions",
      async () => {
        const text = await (await fetch(`${service.url}/metrics`)).text();
        return [...text.matchAll(/^scribe_worker_jobs_total\{[^}]*worker="task-media"[^}]*outcome="(?:done|skipped)"[^}]*\} (\d+)/gm)].reduce(
          (sum, match) => sum + Number(match[1]),
          0,
        );
      },
      (handled) => handled >= deletions,
    );

    const after = await snapshotOfA();
    expect(after).toEqual(before);
  });
});
