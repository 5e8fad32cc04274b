/**
 * The search read model given events, on the embedded store: a new transcript for a task writes only the
 * segments that differ from what is indexed, takes out those past its end, and an event that comes again after
 * a crash part-way makes the model whole.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import type { RecordedEvent } from "../../src/core/event.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import {
  searchProjection,
  searchSegmentsCollection,
  searchTasksCollection,
  type SearchSegmentDocument,
  type SearchTaskDocument,
} from "../../src/search/search-projection.ts";
import { Search } from "../../src/search/service.ts";
import { applyDeclared } from "../../src/core/projection.ts";

const userId = 7;
const taskId = 1;
let db: EmbeddedDocumentStore;
beforeEach(async () => {
  db = new EmbeddedDocumentStore(":memory:");
  await searchProjection.setup?.(db);
});
afterEach(() => db.close());

const lines = (...texts: string[]) => texts.map((text, i) => ({ start: i * 1000, end: i * 1000 + 900, text }));
const event = (position: number, type: string, data: Record<string, unknown>) =>
  ({ position, type, streamName: `task-${taskId}`, data, metadata: {} }) as unknown as RecordedEvent;
const created = (position: number, segments: ReturnType<typeof lines>) => event(position, "TaskCreated", { taskId, userId, name: "Standup", segments });
const edited = (position: number, segments: ReturnType<typeof lines>) => event(position, "TranscriptEdited", { segments });

const segmentDocs = async () =>
  (await db.collection<SearchSegmentDocument>(searchSegmentsCollection).find({ taskId })).sort((a, b) => a.segmentId - b.segmentId);
const found = async (q: string) => (await new Search(db).search(userId, { q })).data.map((result) => result.segment_id);

test("an edit writes only the segments it changed, takes out those past its end, and the rest keep their documents", async () => {
  await applyDeclared(searchProjection, created(1, lines("alpha one", "bravo two", "charlie three", "delta four", "echo five")), db);
  await applyDeclared(searchProjection, edited(2, lines("alpha one", "bravo zanzibar", "charlie three")), db);
  expect((await segmentDocs()).map((doc) => [doc._id, doc._position, doc.text])).toEqual([
    ["1:0", 1, "alpha one"],
    ["1:1", 2, "bravo zanzibar"],
    ["1:2", 1, "charlie three"],
  ]);
  expect((await db.collection<SearchTaskDocument>(searchTasksCollection).findOne({ _id: "1" }))?.segments).toBe(3);
  expect(await found("zanzibar")).toEqual([2]);
  expect(await found("two")).toEqual([]);
  expect(await found("delta")).toEqual([]);
  expect(await found('"bravo zanzibar"')).toEqual([2]);

  // Longer again: the new place is written, the others stay.
  await applyDeclared(searchProjection, edited(3, lines("alpha one", "bravo zanzibar", "charlie three", "foxtrot six")), db);
  expect((await segmentDocs()).map((doc) => [doc._id, doc._position])).toEqual([
    ["1:0", 1],
    ["1:1", 2],
    ["1:2", 1],
    ["1:3", 3],
  ]);
  expect(await found("foxtrot")).toEqual([4]);
});

test("a segment whose times or speaker changed is written again, though its text is the same", async () => {
  await applyDeclared(searchProjection, created(1, lines("alpha one", "bravo two")), db);
  const moved = lines("alpha one", "bravo two").map((segment, i) => (i === 1 ? { ...segment, start: 1500, speaker: "Ann" } : segment));
  await applyDeclared(searchProjection, edited(2, moved), db);
  expect((await segmentDocs()).map((doc) => [doc._position, doc.start, doc.speaker])).toEqual([
    [1, 0, null],
    [2, 1500, "Ann"],
  ]);
});

test("an event that comes again after a crash part-way (some segments written, the task's document not) makes the model whole", async () => {
  const many = lines(...Array.from({ length: 600 }, (_, i) => `line ${i} kilo`));
  await applyDeclared(searchProjection, created(1, many), db);
  // What a crash after the first batches leaves: some segments, no task document.
  await db.collection(searchTasksCollection).deleteOne({ _id: "1" });
  await db.collection(searchSegmentsCollection).deleteMany({ _id: { $in: Array.from({ length: 300 }, (_, i) => `1:${300 + i}`) } });
  await applyDeclared(searchProjection, created(1, many), db);
  expect((await segmentDocs()).length).toBe(600);
  expect((await new Search(db).search(userId, { q: "kilo" })).total).toBe(600);

  // The same for an edit that shortened the transcript: the task's document still counts 600.
  const fewer = many.slice(0, 100).map((segment, i) => (i === 50 ? { ...segment, text: "line 50 lima" } : segment));
  await applyDeclared(searchProjection, edited(2, fewer), db);
  await db
    .collection(searchSegmentsCollection)
    .insertMany([{ _id: "1:400", _position: 2, userId, taskId, segmentId: 401, start: 0, end: 1, speaker: null, text: "x", words: "x", pairs: "" }]);
  await db
    .collection<SearchTaskDocument>(searchTasksCollection)
    .replaceOne({ _id: "1" }, { _id: "1", _position: 1, taskId, userId, name: "Standup", segments: 600 });
  await applyDeclared(searchProjection, edited(2, fewer), db);
  expect((await segmentDocs()).length).toBe(100);
  expect(await found("lima")).toEqual([51]);
});

test("a search part-way through a new task's transcript shows the segments written so far, named, as many as it counts", async () => {
  const many = lines(...Array.from({ length: 600 }, (_, i) => `line ${i} kilo`));
  const applying = applyDeclared(searchProjection, created(1, many), db);
  const search = new Search(db);
  let partWay = await search.search(userId, { q: "kilo" });
  for (let turn = 0; partWay.total === 0; turn++) {
    if (turn > 10_000) throw new Error("nothing was indexed");
    await new Promise((resolve) => setImmediate(resolve));
    partWay = await search.search(userId, { q: "kilo" });
  }
  await applying;
  expect(partWay.total).toBeLessThan(600);
  expect(partWay.data).toHaveLength(Math.min(partWay.total, 25));
  expect(partWay.data[0]?.task_name).toBe("Standup");
  // Once done, the task's document says so: the event is not folded again.
  expect(await db.collection<SearchTaskDocument>(searchTasksCollection).findOne({ _id: "1" })).toMatchObject({ _position: 1, segments: 600 });
  expect((await search.search(userId, { q: "kilo" })).total).toBe(600);
});
