/**
 * A task's version over HTTP (no lost edits): `GET /api/tasks/{id}` answers an ETag, the task stream's
 * revision; `PATCH`, `DELETE` and `PATCH .../retry` with `If-Match` change the task only while it is still at
 * that version (412 otherwise, 422 for a header that is no list of entity tags); without the header they change
 * it as before. Two writers with the same version: exactly one lands. Hostile headers: huge, lists, weak tags,
 * garbage, built-in names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createFolder, createTask, failTask, json, segment, taskCommand, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { taskStream } from "../../src/tasks/events.ts";

let app: TestApp;
beforeAll(async () => {
  // The task API alone (nothing transcribes the made-up paths), at a script's pace.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
});
afterAll(() => app.close());

const get = (user: User, id: number) => app.request("GET", `/api/tasks/${id}`, { token: user.token });
const patch = (user: User, id: number, body: Json, ifMatch?: string) =>
  app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: body, headers: ifMatch === undefined ? {} : { "if-match": ifMatch } });
const etag = async (user: User, id: number): Promise<string> => {
  const response = await get(user, id);
  expect(response.status).toBe(200);
  return response.headers.get("etag")!;
};
const name = async (user: User, id: number) => (await json(await get(user, id))).name;

/**
 * A finished task with a two-segment transcript, once the service's own changes to it have settled: its summary, and
 * the pdf and docx made ahead of time after it finished and again after the summary. The summary moves the version,
 * and on a busy machine it lands after the test has read it. Settled: the task's stream has not grown for half a second.
 */
async function transcribed(user: User): Promise<number> {
  const id = await createTask(app, user, { segments: [segment(0, 1000, "One two."), segment(1000, 2500, "Three.")], duration: 3 });
  await waitForStatus(app, user, id, "finished");
  let length = -1;
  for (let stable = 0, tries = 0; stable < 5; tries++) {
    if (tries === 300) throw new Error(`task ${id}'s stream still grows after 30 s`);
    await Bun.sleep(100);
    const now = (await app.adapters.eventStore.readStream(taskStream(id))).length;
    stable = now === length && (await json(await get(user, id))).summary ? stable + 1 : 0;
    length = now;
  }
  return id;
}

async function expectPreconditionFailed(response: Response): Promise<string> {
  expect(response.status).toBe(412);
  const body = await json<{ message: string }>(response);
  expect(Object.keys(body)).toEqual(["message"]);
  return body.message;
}

describe("the ETag of GET /api/tasks/{id}", () => {
  test("is a strong entity tag that moves with every change to the task, the service's too, and only then", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    const first = await etag(user, id);
    expect(first).toMatch(/^"\d+"$/);
    // Read again with nothing changed: the same version (from the kept answer too).
    expect(await etag(user, id)).toBe(first);
    expect(await etag(user, id)).toBe(first);
    await failTask(app, id, "the recogniser gave up");
    const failed = await etag(user, id);
    expect(failed).not.toBe(first);
    const renamed = await patch(user, id, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("etag")).not.toBe(failed);
  });

  test("a successful PATCH answers the new version, and a GET right after agrees with it and shows the change", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    let version = await etag(user, id);
    for (const body of [{ name: "One" }, { text: "Uno dos.\nTres." }, { segments: [segment(0, 2500, "All in one.")] }, { quality: 4 }]) {
      const answer = await patch(user, id, body, version);
      expect(answer.status).toBe(200);
      const next = answer.headers.get("etag")!;
      expect(next).not.toBe(version);
      const shown = await json(answer);
      const read = await get(user, id);
      expect(read.headers.get("etag")).toBe(next);
      expect(await json(read)).toEqual(shown);
      version = next;
    }
  });

  test("a folder renamed elsewhere changes no task's version (it is the account's change, not the task's)", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    await createFolder(app, user, "Office");
    expect((await patch(user, id, { folder: "Office" })).status).toBe(200);
    const before = await etag(user, id);
    expect((await app.request("PATCH", "/api/folders/Office", { token: user.token, json: { name: "Studio" } })).status).toBe(200);
    const after = await get(user, id);
    expect((await json(after)).folder).toBe("Studio");
    expect(after.headers.get("etag")).toBe(before);
    // So a change made on that version still lands.
    expect((await patch(user, id, { name: "Moved on" }, before)).status).toBe(200);
  });

  test("the service's bookkeeping leaves it: the pdf and docx made after a rename, so a change made on the version read still lands", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const renamed = await patch(user, id, { name: "Renamed" }, await etag(user, id));
    expect(renamed.status).toBe(200);
    const version = renamed.headers.get("etag")!;
    // The rename has the pdf and docx made again, each recorded on the task's stream after it.
    const afterRename = Number(JSON.parse(version));
    const madeSince = async () =>
      (await app.adapters.eventStore.readStream(taskStream(id), { fromRevision: afterRename + 1 })).filter((e) => e.type === "ExportGenerated").length;
    for (let tries = 0; (await madeSince()) < 2; tries++) {
      if (tries === 300) throw new Error("the pdf and docx were not made again within 30 s");
      await Bun.sleep(100);
    }
    const newest = (await app.adapters.eventStore.readStream(taskStream(id))).at(-1)!;
    await app.service.waitForProjections(newest.position);
    expect(await etag(user, id)).toBe(version);
    // Any revision from the last change shown on names what the task shows (a read model from before answers the newest).
    expect(newest.revision).toBeGreaterThan(afterRename);
    expect((await patch(user, id, { quality: 3 }, `"${newest.revision}"`)).status).toBe(200);
    await expectPreconditionFailed(await patch(user, id, { name: "On the old version" }, version));
  });
});

describe("PATCH /api/tasks/{id} with If-Match", () => {
  test("a stale version is 412 in the error shape, and the task is left as the newer change made it", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const read = await etag(user, id);
    // Another tab saves first.
    expect((await patch(user, id, { name: "Newer", text: "Newer one.\nNewer two." }, read)).status).toBe(200);
    const message = await expectPreconditionFailed(await patch(user, id, { name: "Older", text: "Older one.\nOlder two." }, read));
    expect(message).toContain("changed since you read it");
    const task = await json(await get(user, id));
    expect(task.name).toBe("Newer");
    expect((task.segments as Json[]).map((s) => s.text)).toEqual(["Newer one.", "Newer two."]);
    // What the refused edit stored for its transcript is not left behind.
    await expectNoOrphanBlobs(app);
  });

  test("without If-Match a change lands whatever the version, as before; * matches the task at any version", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    const old = await etag(user, id);
    expect((await patch(user, id, { name: "A" })).status).toBe(200);
    const blind = await patch(user, id, { name: "B" });
    expect(blind.status).toBe(200);
    expect(blind.headers.get("etag")).toMatch(/^"\d+"$/);
    expect((await patch(user, id, { name: "C" }, "*")).status).toBe(200);
    expect((await patch(user, id, { name: "D" }, " * ")).status).toBe(200);
    expect(await name(user, id)).toBe("D");
    await expectPreconditionFailed(await patch(user, id, { name: "E" }, old));
  });

  test("another user's task or none is 404 whatever the header says; a body error is still 422", async () => {
    const owner = await app.register();
    const other = await app.register();
    const id = await createTask(app, owner);
    const version = await etag(owner, id);
    for (const header of [version, "*", '"0"', "garbage"]) {
      const answer = await patch(other, id, { name: "Mine now" }, header);
      // A malformed header is refused before the task is looked for: nothing about the task is told either way.
      expect(answer.status).toBe(header === "garbage" ? 422 : 404);
    }
    expect((await patch(owner, 999_999_999, { name: "X" }, "*")).status).toBe(404);
    expect((await patch(owner, id, { name: "" }, version)).status).toBe(422);
    expect(await name(owner, id)).toBe("Interview");
  });

  test("the fields of one PATCH change together: a stale one changes none of them", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await createFolder(app, user, "Kept");
    const read = await etag(user, id);
    expect((await patch(user, id, { quality: 1 }, read)).status).toBe(200);
    await expectPreconditionFailed(await patch(user, id, { name: "All", folder: "Kept", text: "a\nb", quality: 5 }, read));
    const task = await json(await get(user, id));
    expect([task.name, task.folder, task.quality]).toEqual(["Interview", null, 1]);
    // On the current version all of them change, in one append.
    const current = await etag(user, id);
    const answer = await patch(user, id, { name: "All", folder: "Kept", text: "a\nb", quality: 5 }, current);
    expect(answer.status).toBe(200);
    const after = await json(answer);
    expect([after.name, after.folder, after.quality]).toEqual(["All", "Kept", 5]);
    expect(Number(JSON.parse(answer.headers.get("etag")!))).toBe(Number(JSON.parse(current)) + 4);
  });

  test("parallel PATCHes made on the same version: exactly one lands, the others are 412", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const read = await etag(user, id);
    const writers = Array.from({ length: 8 }, (_, i) => i);
    const answers = await Promise.all(
      writers.map((i) => patch(user, id, { name: `Writer ${i}`, segments: [segment(0, 2500, `Writer ${i}'s transcript.`)] }, read)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(writers.length - 1);
    const winner = statuses.indexOf(200);
    const task = await json(await get(user, id));
    expect(task.name).toBe(`Writer ${winner}`);
    expect((task.segments as Json[])[0]!.text).toBe(`Writer ${winner}'s transcript.`);
    // The losers' stored transcripts are discarded.
    await expectNoOrphanBlobs(app);
  });

  test("parallel PATCHes without If-Match all land, as before", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    const answers = await Promise.all([0, 1, 2, 3].map((i) => patch(user, id, { name: `Blind ${i}` })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  });
});

describe("hostile If-Match values", () => {
  let user: User;
  let id: number;
  let version: string;
  beforeAll(async () => {
    user = await app.register();
    id = await createTask(app, user);
    version = await etag(user, id);
  });

  test("a list matches when one of its tags does; empty elements and tabs are allowed", async () => {
    const answer = await patch(user, id, { quality: 1 }, `"nope", W/${version},, ${version}\t,"x,y"`);
    expect(answer.status).toBe(200);
    version = answer.headers.get("etag")!;
  });

  test("weak tags never match (strong comparison, RFC 9110 13.1.1), and the 412 says so", async () => {
    const message = await expectPreconditionFailed(await patch(user, id, { quality: 2 }, `W/${version}`));
    expect(message).toContain("weak");
    await expectPreconditionFailed(await patch(user, id, { quality: 2 }, `W/${version}, W/"r${JSON.parse(version)}"`));
  });

  test("tags we never made match nothing: 412", async () => {
    const n = Number(JSON.parse(version));
    for (const header of [
      `"0${n}"`,
      `"${n}.0"`,
      `"!${n}"`,
      `"-${n}"`,
      `"${n + 1}"`,
      '"99999999999999999999999999"',
      '"__proto__"',
      '"constructor", "toString", "hasOwnProperty"',
      '""',
      `"\u00ff${n}"`,
    ]) {
      await expectPreconditionFailed(await patch(user, id, { quality: 3 }, header));
    }
  });

  test("what is no list of entity tags is 422 on If-Match", async () => {
    const n = Number(JSON.parse(version));
    for (const header of [
      String(n),
      `'${n}'`,
      `"${n}`,
      `${version}x`,
      `${version} ${version}`,
      `w/${version}`,
      `*, ${version}`,
      "**",
      "",
      " , ,",
      `"a"b"`,
      `"${n}\u007f"`,
      `{"${n}": true}`,
    ]) {
      const answer = await patch(user, id, { quality: 3 }, header);
      expect(answer.status).toBe(422);
      const body = await json<{ message: string; errors: Record<string, string[]> }>(answer);
      expect(Object.keys(body.errors)).toEqual(["If-Match"]);
      expect(body.message).toContain("entity tags");
    }
    expect((await json(await get(user, id))).quality).toBe(1);
  });

  test("huge headers are read in linear time: a long list, one long tag, and a long run of garbage", async () => {
    const started = performance.now();
    const longList = Array.from({ length: 100_000 }, (_, i) => `"x${i}"`).join(", ");
    await expectPreconditionFailed(await patch(user, id, { quality: 4 }, longList));
    expect((await patch(user, id, { quality: 4 }, `${longList}, ${version}`)).status).toBe(200);
    version = await etag(user, id);
    await expectPreconditionFailed(await patch(user, id, { quality: 5 }, `"${"a".repeat(1_000_000)}"`));
    expect((await patch(user, id, { quality: 5 }, `"${"a".repeat(1_000_000)}`)).status).toBe(422);
    expect((await patch(user, id, { quality: 5 }, ",".repeat(1_000_000))).status).toBe(422);
    expect((await patch(user, id, { quality: 5 }, `${'"a",'.repeat(250_000)}x`)).status).toBe(422);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await json(await get(user, id))).quality).toBe(4);
  });
});

describe("the other writes to one task honour If-Match", () => {
  test("DELETE /api/tasks/{id}: a stale version is 412 and the task stays; the current one deletes it", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    const read = await etag(user, id);
    expect((await patch(user, id, { name: "Changed in another tab" })).status).toBe(200);
    const del = (ifMatch: string) => app.request("DELETE", `/api/tasks/${id}`, { token: user.token, headers: { "if-match": ifMatch } });
    await expectPreconditionFailed(await del(read));
    expect(await name(user, id)).toBe("Changed in another tab");
    expect((await del("garbage")).status).toBe(422);
    expect((await del(await etag(user, id))).status).toBe(200);
    expect((await get(user, id)).status).toBe(404);
  });

  test("PATCH /api/tasks/{id}/retry: a stale version is 412 and the task stays failed; the current one retries it", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    await failTask(app, id);
    const read = await etag(user, id);
    await taskCommand(app, id, { type: "RecordSummaryFailure", reason: "a later fact about the task" });
    const retry = (ifMatch: string) => app.request("PATCH", `/api/tasks/${id}/retry`, { token: user.token, headers: { "if-match": ifMatch } });
    await expectPreconditionFailed(await retry(read));
    expect((await json(await get(user, id))).status).toBe("failed");
    const answer = await retry(await etag(user, id));
    expect(answer.status).toBe(200);
    expect((await json(answer)).attempts).toBe(2);
  });
});
