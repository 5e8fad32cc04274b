/**
 * A new transcript's answer waits for the search read model at most its answerWaitMs (2 s): with search held back (its
 * segment writes stalled, as a slow disk or a maximal transcript would), a task created with a transcript is answered
 * 201 and readable, and is found once search gets through. A delete still waits until search shows it: erasure relies
 * on a deleted task's words having left the index when the delete is answered.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, json, segment } from "../support/tasks.ts";
import { until } from "../support/eventually.ts";
import { searchProjection, searchSegmentsCollection } from "../../src/search/search-projection.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";

let release: () => void = () => {};
let held: Promise<void> | null = null;
const holdSearch = () => (held = new Promise((resolve) => (release = resolve)));
const letSearchGo = () => ((held = null), release());

const writes = new Set(["insertOne", "insertMany", "replaceOne", "updateOne", "updateMany", "deleteMany"]);

/** The document store, with every write to the search segments waiting while search is held back (reads go on). */
function searchHeldBack(inner: DocumentStore): DocumentStore {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "collection" || typeof value !== "function") return value;
      return (name: string) => {
        const collection = Reflect.apply(value, target, [name]) as object;
        if (name !== searchSegmentsCollection) return collection;
        return new Proxy(collection, {
          get(object, method, proxy) {
            const call = Reflect.get(object, method, proxy) as unknown;
            if (typeof call !== "function" || typeof method !== "string" || !writes.has(method)) return call;
            return async (...args: unknown[]) => {
              if (held) await held;
              return Reflect.apply(call, object, args);
            };
          },
        });
      };
    },
  });
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp(
    { ...scriptPace, TRANSCRIPTION_WORKER: "off" },
    { adapters: (opened) => ({ ...opened, documents: searchHeldBack(opened.documents) }) },
  );
});
afterAll(async () => {
  letSearchGo();
  await app.close();
});

type Page = { data: { task_id: number; segment_id: number }[] };

test("with search held back, a created task is answered within search's answer wait, readable, and found once search goes on", async () => {
  const user = await app.register();
  holdSearch();
  const started = performance.now();
  const id = await createTask(app, user, { name: "Held back", segments: [segment(0, 1000, "The quokka spoke first.")] });
  const answeredMs = performance.now() - started;
  expect(answeredMs).toBeGreaterThanOrEqual((searchProjection.answerWaitMs ?? 0) - 50);
  expect(answeredMs).toBeLessThan(15_000);
  expect((await getTask(app, user, id)).name).toBe("Held back");
  const search = async () => json<Page>(await app.request("GET", "/api/search?q=quokka", { token: user.token }));
  expect((await search()).data).toEqual([]);
  letSearchGo();
  const found = await until("search to find the task", async () => {
    const page = await search();
    return page.data.length > 0 && page;
  });
  expect(found.data.map((hit) => [hit.task_id, hit.segment_id])).toEqual([[id, 1]]);
}, 30_000);

test("with search held back, a delete is answered only once search has taken the task's words out", async () => {
  const user = await app.register();
  const id = await createTask(app, user, { name: "To delete", segments: [segment(0, 1000, "The wombat left early.")] });
  holdSearch();
  let answered = false;
  const deleting = app.request("DELETE", `/api/tasks/${id}`, { token: user.token }).then((response) => ((answered = true), response));
  await Bun.sleep((searchProjection.answerWaitMs ?? 0) + 500);
  expect(answered).toBe(false);
  letSearchGo();
  expect((await deleting).status).toBe(200);
  const page = json<Page>(await app.request("GET", "/api/search?q=wombat", { token: user.token }));
  expect((await page).data).toEqual([]);
}, 30_000);
