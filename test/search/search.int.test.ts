/**
 * GET /api/search through the API: what a client sees right after its own writes (create with a transcript,
 * edit a segment, rename, delete, retry), another user's view, bad input, and the read model a replay
 * rebuilds from the log (transcripts read from the blob store) equal to the live one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, expectValidation, failTask, json, segment, taskCommand, waitForSlotFree, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { until } from "../support/eventually.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { searchProjection } from "../../src/search/search-projection.ts";

type Result = { task_id: number; task_name: string; segment_id: number; start: number; end: number; speaker: string | null; snippet: string };
type Page = { data: Result[]; current_page: number; last_page: number; per_page: number; total: number };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" }); // made-up media: nothing transcribes here
});
afterAll(() => app.close());

const searchRaw = (user: User, query: string) => app.request("GET", `/api/search?${query}`, { token: user.token });
async function search(user: User, q: string, extra = ""): Promise<Page> {
  const response = await searchRaw(user, `q=${encodeURIComponent(q)}${extra}`);
  expect(response.status).toBe(200);
  return json<Page>(response);
}

describe("GET /api/search", () => {
  test("a maximal transcript (100,000 segments) is answered once its task can be read, and found once indexed", async () => {
    const user = await app.register();
    const segments = Array.from({ length: 100_000 }, (_, i) =>
      segment(i * 1000, i * 1000 + 900, i === 99_999 ? "The very last zanzibar remark." : `Segment ${i} about the meeting and the budget plan.`),
    );
    // The answer waits for search at most its answerWaitMs (2 s), not the ~10-20 s the whole transcript takes to index.
    const id = await createTask(app, user, { name: "Longest", segments, duration: 100_000 });
    expect((await app.request("GET", `/api/tasks/${id}`, { token: user.token })).status).toBe(200);
    const found = await until(
      "the last segment to be searchable",
      async () => {
        const page = await search(user, "zanzibar");
        return page.data.length > 0 && page;
      },
      60_000,
      250,
    );
    expect(found.data.map((r) => [r.task_id, r.segment_id])).toEqual([[id, 100_000]]);
  }, 90_000);

  test("finds a created task's segments at once, ranked, with the task list's pagination fields", async () => {
    const user = await app.register();
    const id = await createTask(app, user, {
      name: "Quarterly review",
      segments: [
        segment(0, 1000, "Revenue is up.", { speaker: "Ann" }),
        segment(1000, 2000, "Revenue, revenue, revenue!"),
        segment(2000, 3000, "Costs are flat."),
      ],
    });
    const page = await search(user, "revenue");
    expect(page).toMatchObject({ current_page: 1, last_page: 1, per_page: 25, total: 2 });
    expect(page.data).toEqual([
      {
        task_id: id,
        task_name: "Quarterly review",
        segment_id: 2,
        start: 1000,
        end: 2000,
        speaker: null,
        snippet: "<mark>Revenue</mark>, <mark>revenue</mark>, <mark>revenue</mark>!",
      },
      { task_id: id, task_name: "Quarterly review", segment_id: 1, start: 0, end: 1000, speaker: "Ann", snippet: "<mark>Revenue</mark> is up." },
    ]);
    expect((await search(user, "revenue", "&per_page=1&page=2")).data.map((r) => r.segment_id)).toEqual([1]);
    expect((await search(user, '"costs are"')).data.map((r) => r.segment_id)).toEqual([3]);
    expect((await search(user, "reven*")).total).toBe(2);
  });

  test("an edited segment is found by its new text and not its old, as soon as the edit answers; a rename shows too", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { name: "Draft", segments: [segment(0, 1000, "the original sentence"), segment(1000, 2000, "untouched")] });
    const edit = await app.request("PATCH", `/api/tasks/${id}`, {
      token: user.token,
      json: { name: "Final", segments: [segment(0, 1000, "the corrected sentence"), segment(1000, 2000, "untouched")] },
    });
    expect(edit.status).toBe(200);
    expect((await search(user, "original")).total).toBe(0);
    expect((await search(user, "corrected")).data).toEqual([expect.objectContaining({ task_id: id, task_name: "Final", segment_id: 1 })]);
    const rename = await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { name: "Renamed" } });
    expect(rename.status).toBe(200);
    expect((await search(user, "untouched")).data[0]!.task_name).toBe("Renamed");
  });

  test("a deleted task is gone from results as soon as the delete answers; bulk delete too", async () => {
    const user = await app.register();
    const gone = await createTask(app, user, { segments: [segment(0, 1, "vanishing words")] });
    const bulk = await createTask(app, user, { segments: [segment(0, 1, "vanishing in bulk")] });
    const kept = await createTask(app, user, { segments: [segment(0, 1, "vanishing but kept")] });
    expect((await app.request("DELETE", `/api/tasks/${gone}`, { token: user.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await app.request("DELETE", "/api/tasks/bulk", { token: user.token, json: { ids: [bulk] } })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await search(user, "vanishing")).data.map((r) => r.task_id)).toEqual([kept]);
  });

  test("a retry takes the old transcript out as soon as it answers; the new one is found when the task finishes", async () => {
    const user = await app.register();
    // A pending task given a transcript by an edit, then failed: it has a transcript when it is retried.
    const id = await createTask(app, user);
    const edit = await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { segments: [segment(0, 1, "first attempt words")] } });
    expect(edit.status).toBe(200);
    expect((await search(user, "attempt")).total).toBe(1);
    await failTask(app, id);
    await waitForSlotFree(app, user.id, id);
    expect((await app.request("PATCH", `/api/tasks/${id}/retry`, { token: user.token })).status).toBe(200);
    expect((await search(user, "attempt")).total).toBe(0);
    const transcript = await app.adapters.transcripts.save(id, [{ id: 1, start: 0, end: 5, text: "second attempt words", speaker: null, tokens: null }]);
    await taskCommand(app, id, { type: "FinishTask", transcript, duration: 5, cost: 1, summary: null, mindmap: null });
    expect((await search(user, "attempt")).data).toEqual([expect.objectContaining({ task_id: id, snippet: "second <mark>attempt</mark> words" })]);
  });

  test("another user never sees the first's segments, whatever they ask", async () => {
    const [owner, other] = [await app.register(), await app.register()];
    const secret = `zq${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;
    await createTask(app, owner, { name: secret, segments: [segment(0, 1, `${secret} merger plans`)] });
    expect((await search(owner, secret)).total).toBe(1);
    for (const q of [secret, `${secret.slice(0, 4)}*`, '"merger plans"', "merger"]) {
      const page = await search(other, q, `&user_id=${owner.id}&userId=${owner.id}`);
      expect({ q, total: page.total, data: page.data }).toEqual({ q, total: 0, data: [] });
    }
  });

  test("CJK text is found by a run of its characters", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { name: "会議", segments: [segment(0, 1, "明日は東京で会議があります")] });
    expect((await search(user, "東京")).data).toEqual([expect.objectContaining({ task_id: id, snippet: "明日は<mark>東京</mark>で会議があります" })]);
  });

  test("bad input is 422 with the field named, never a 500", async () => {
    const user = await app.register();
    const bad: [string, string][] = [
      ["", "q"],
      ["q=", "q"],
      ["q=%20%20", "q"],
      [`q=${encodeURIComponent('"unbalanced')}`, "q"],
      ["q=*", "q"],
      ["q=a*b", "q"],
      ["q=%00", "q"],
      ["q=x%00y", "q"],
      [`q=${"x".repeat(501)}`, "q"],
      ["q=ok&page=0", "page"],
      ["q=ok&page=1000001", "page"],
      ["q=ok&per_page=0", "per_page"],
      ["q=ok&per_page=101", "per_page"],
    ];
    for (const [query, field] of bad) {
      const response = await searchRaw(user, query);
      expect({ query, status: response.status }).toEqual({ query, status: 422 });
      await expectValidation(response, field);
    }
    for (const query of ["q=ok&page=x", "q=ok&per_page=1.5"]) expect((await searchRaw(user, query)).status).toBe(422);
    expect((await app.request("GET", "/api/search?q=x")).status).toBe(401);
  });

  test("a replay builds the same search read model from the log, reading transcripts from the blob store", async () => {
    const fresh = new EmbeddedDocumentStore(":memory:");
    try {
      await new ProjectionRunner(app.adapters.eventStore, fresh, [searchProjection], () => true, { transcripts: app.adapters.transcripts }).rebuild();
      for (const collection of searchProjection.collections) {
        const rows = (db: { collection: EmbeddedDocumentStore["collection"] }) => db.collection(collection).find({}, { sort: { _id: 1 } });
        const live = await rows(app.adapters.documents as EmbeddedDocumentStore);
        expect(live.length).toBeGreaterThan(0);
        expect({ collection, rows: await rows(fresh) }).toEqual({ collection, rows: live });
      }
      expect(
        (await fresh.collection("search_segments").searchText(-1, [{ words: ["attempt"], prefix: false }], { skip: 0, limit: 1, atMost: 100 })).total,
      ).toBe(0);
    } finally {
      await fresh.close();
    }
    // Rebuilding every transcript this file indexed (thousands of segments) takes 4-5 s alone: past the default on a busy machine.
  }, 30_000);
});
