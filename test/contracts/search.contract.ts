/**
 * The search contract: the search read model (src/search/search-projection.ts) and its queries (Search)
 * on a read-model store, which every backend must pass: the embedded store's FTS5 index always, MongoDB's
 * text index when MONGODB_URL is set. Ranking, phrases, prefixes, CJK, marked snippets, pagination, the
 * owner's isolation, and what edits, renames, retries and deletions do to results. Each test uses users
 * of its own, so the suite can share one store (and a shared MongoDB database).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RecordedEvent } from "../../src/core/event.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";
import { searchProjection, segmentBatch } from "../../src/search/search-projection.ts";
import { Search } from "../../src/search/service.ts";
import { ValidationFailedError } from "../../src/core/errors.ts";
import { applyDeclared } from "../../src/core/projection.ts";

export type OpenSearchStore = () => Promise<{ store: DocumentStore; close: () => Promise<void> }>;

type Segment = { start: number; end: number; text: string; speaker?: string | null; id?: number };

export function searchContract(adapterName: string, open: OpenSearchStore): void {
  describe(`search contract: ${adapterName}`, () => {
    let store: DocumentStore;
    let close: () => Promise<void> = async () => {};
    let search: Search;
    let position = 0;
    // Ids far apart per run, so a shared store's earlier runs never answer this one's queries.
    let nextId = Math.floor(Math.random() * 1_000_000) * 1000;
    const newId = () => ++nextId;

    beforeAll(async () => {
      ({ store, close } = await open());
      await searchProjection.setup?.(store);
      search = new Search(store);
    });
    afterAll(() => close());

    const deliver = async (streamName: string, type: string, data: Record<string, unknown>, again = false) => {
      const event: RecordedEvent = {
        id: crypto.randomUUID(),
        type,
        data: data as RecordedEvent["data"],
        metadata: { correlationId: "contract", causationId: null, userId: null, system: "test" },
        streamName,
        revision: 0,
        position: ++position,
        time: new Date().toISOString(),
      };
      await applyDeclared(searchProjection, event, store);
      // Delivered twice, as after a restart before the checkpoint was saved: nothing may change.
      if (again) await applyDeclared(searchProjection, event, store);
    };
    const createTask = async (userId: number, name: string, segments: Segment[] | null) => {
      const taskId = newId();
      const data = { taskId, userId, name, file: null, path: "p", disk: "objstore", size: null, duration: null, cost: null, url: null };
      await deliver(
        `task-${taskId}`,
        "TaskCreated",
        { ...data, speakerDiarization: false, transcript: null, segments, createdAt: "2026-01-01T00:00:00Z" },
        true,
      );
      return taskId;
    };
    const finish = (userId: number, taskId: number, segments: Segment[]) =>
      deliver(
        `task-${taskId}`,
        "TaskFinished",
        { userId, taskId, attempt: 1, name: "x", transcript: null, segments, duration: null, cost: null, summary: null, mindmap: null },
        true,
      );
    const find = (userId: number, q: string, page = 1, perPage = 25) => search.search(userId, { q, page, per_page: perPage });
    const ids = async (userId: number, q: string) => (await find(userId, q)).data.map((r) => [r.task_id, r.segment_id]);

    test("a term finds the segments holding it, with the task's name, the segment's times and speaker, marked", async () => {
      const user = newId();
      const taskId = await createTask(user, "Board meeting", [
        { start: 0, end: 1500, text: "Welcome to the quarterly review.", speaker: "Alice" },
        { start: 1500, end: 3000, text: "Revenue grew in every region." },
      ]);
      const result = await find(user, "revenue");
      expect(result).toEqual({
        data: [
          {
            task_id: taskId,
            task_name: "Board meeting",
            segment_id: 2,
            start: 1500,
            end: 3000,
            speaker: null,
            snippet: "<mark>Revenue</mark> grew in every region.",
          },
        ],
        current_page: 1,
        last_page: 1,
        per_page: 25,
        total: 1,
      });
      expect((await find(user, "quarterly")).data[0]).toMatchObject({
        segment_id: 1,
        speaker: "Alice",
        snippet: "Welcome to the <mark>quarterly</mark> review.",
      });
    });

    test("results are ranked by relevance: more occurrences in a shorter segment come first", async () => {
      const user = newId();
      const taskId = await createTask(user, "Ranking", [
        { start: 0, end: 1, text: "budget and other matters, among them many more words that dilute the one mention of it here" },
        { start: 1, end: 2, text: "budget budget budget" },
        { start: 2, end: 3, text: "nothing relevant" },
        { start: 3, end: 4, text: "the budget, twice: budget" },
      ]);
      expect(await ids(user, "budget")).toEqual([
        [taskId, 2],
        [taskId, 4],
        [taskId, 1],
      ]);
    });

    test("several words must all match, anywhere and in any order", async () => {
      const user = newId();
      const taskId = await createTask(user, "All words", [
        { start: 0, end: 1, text: "green apples and red pears" },
        { start: 1, end: 2, text: "green pears" },
        { start: 2, end: 3, text: "apples only" },
      ]);
      expect(await ids(user, "pears green")).toEqual(
        expect.arrayContaining([
          [taskId, 1],
          [taskId, 2],
        ]),
      );
      expect((await find(user, "pears green")).total).toBe(2);
      expect(await ids(user, "apples pears")).toEqual([[taskId, 1]]);
    });

    test('a "phrase" matches those words in that order only, and is marked whole', async () => {
      const user = newId();
      const taskId = await createTask(user, "Phrases", [
        { start: 0, end: 1, text: "the exact words we said" },
        { start: 1, end: 2, text: "exact ones, and words" },
      ]);
      const result = await find(user, '"exact words"');
      expect(result.data.map((r) => [r.task_id, r.segment_id])).toEqual([[taskId, 1]]);
      expect(result.data[0]!.snippet).toBe("the <mark>exact words</mark> we said");
      expect(await ids(user, '"words exact"')).toEqual([]);
    });

    test("a prefix* matches every word it starts, and a phrase can end in one", async () => {
      const user = newId();
      const taskId = await createTask(user, "Prefixes", [
        { start: 0, end: 1, text: "Transcription is done" },
        { start: 1, end: 2, text: "the transcript was long" },
        { start: 2, end: 3, text: "a trans-atlantic call" },
        { start: 3, end: 4, text: "nothing here" },
      ]);
      const result = await find(user, "transc*");
      expect(result.total).toBe(2);
      expect(result.data.map((r) => r.segment_id).sort()).toEqual([1, 2]);
      expect(result.data.find((r) => r.segment_id === 2)!.snippet).toBe("the <mark>transcript</mark> was long");
      expect(await ids(user, '"the transc"*')).toEqual([[taskId, 2]]);
      expect(await ids(user, "transc")).toEqual([]);
    });

    test("case, accents and full-width forms fold: CAFÉ finds café and cafe", async () => {
      const user = newId();
      await createTask(user, "Folding", [
        { start: 0, end: 1, text: "un café noir" },
        { start: 1, end: 2, text: "the cafe on the corner" },
        { start: 2, end: 3, text: "ＡＢＣ news" },
      ]);
      expect((await find(user, "CAFÉ")).total).toBe(2);
      expect((await find(user, "abc")).data[0]!.snippet).toBe("<mark>ＡＢＣ</mark> news");
    });

    test("CJK text is found by any run of its characters, two-character words included", async () => {
      const user = newId();
      const taskId = await createTask(user, "東京の会議", [
        { start: 0, end: 1, text: "東京都に行きました。" },
        { start: 1, end: 2, text: "京都は美しい" },
        { start: 2, end: 3, text: "我们明天在北京开会" },
        { start: 3, end: 4, text: "한국어 음성 인식" },
      ]);
      const tokyo = await find(user, "東京");
      expect(tokyo.data).toEqual([
        expect.objectContaining({ task_id: taskId, task_name: "東京の会議", segment_id: 1, snippet: "<mark>東京</mark>都に行きました。" }),
      ]);
      expect((await find(user, "京都")).total).toBe(2);
      expect(await ids(user, "北京")).toEqual([[taskId, 3]]);
      expect(await ids(user, "音성")).toEqual([]);
      expect(await ids(user, "음성")).toEqual([[taskId, 4]]);
      expect(await ids(user, "京*")).toEqual(
        expect.arrayContaining([
          [taskId, 1],
          [taskId, 2],
          [taskId, 3],
        ]),
      );
    });

    test("snippets are HTML-escaped around the marks, and a long segment is cut around its first match", async () => {
      const user = newId();
      const long = `${"lorem ipsum ".repeat(60)}needle ${"dolor sit ".repeat(60)}`;
      await createTask(user, "Escaping", [
        { start: 0, end: 1, text: `<script>alert("x")</script> & more` },
        { start: 1, end: 2, text: long },
      ]);
      expect((await find(user, "alert")).data[0]!.snippet).toBe("&lt;script&gt;<mark>alert</mark>(&quot;x&quot;)&lt;/script&gt; &amp; more");
      const cut = (await find(user, "needle")).data[0]!.snippet;
      expect(cut).toContain("<mark>needle</mark>");
      expect(cut.startsWith("…") && cut.endsWith("…")).toBe(true);
      expect(cut.length).toBeLessThan(300);
    });

    test("pages: every result once, in rank order, with the task list's pagination fields", async () => {
      const user = newId();
      await createTask(
        user,
        "Many",
        Array.from({ length: 23 }, (_, i) => ({ start: i, end: i + 1, text: `topic ${"topic ".repeat(i % 5)}filler ${"x ".repeat(i)}` })),
      );
      const first = await find(user, "topic", 1, 10);
      expect(first).toMatchObject({ current_page: 1, last_page: 3, per_page: 10, total: 23 });
      const pages = [first, await find(user, "topic", 2, 10), await find(user, "topic", 3, 10)];
      expect(pages.map((p) => p.data.length)).toEqual([10, 10, 3]);
      const all = pages.flatMap((p) => p.data.map((r) => r.segment_id));
      expect(new Set(all).size).toBe(23);
      expect(await find(user, "topic", 4, 10)).toMatchObject({ data: [], total: 23, last_page: 3 });
    });

    test("only the owner's transcripts are searched", async () => {
      const [owner, other] = [newId(), newId()];
      const taskId = await createTask(owner, "Secret", [{ start: 0, end: 1, text: "confidential merger plans" }]);
      await createTask(other, "Other", [{ start: 0, end: 1, text: "public notes" }]);
      expect(await ids(owner, "merger")).toEqual([[taskId, 1]]);
      for (const q of ["merger", "confid*", '"merger plans"', "confidential"]) expect((await find(other, q)).total).toBe(0);
    });

    test("an edit replaces the task's segments; a rename shows in results; a retry takes the transcript out until it finishes again", async () => {
      const user = newId();
      const taskId = await createTask(user, "Draft", [{ start: 0, end: 1, text: "the original wording" }]);
      await deliver(
        `task-${taskId}`,
        "TranscriptEdited",
        { userId: user, taskId, segments: [{ id: 7, start: 0, end: 1, text: "the corrected wording", speaker: "Bo" }] },
        true,
      );
      expect(await ids(user, "original")).toEqual([]);
      expect((await find(user, "corrected")).data).toEqual([expect.objectContaining({ task_id: taskId, segment_id: 7, speaker: "Bo", task_name: "Draft" })]);
      await deliver(`task-${taskId}`, "TaskRenamed", { userId: user, taskId, name: "Final" }, true);
      expect((await find(user, "corrected")).data[0]!.task_name).toBe("Final");
      await deliver(`task-${taskId}`, "TaskFailed", { userId: user, taskId, attempt: 1, name: "Final", reason: "x" });
      await deliver(`task-${taskId}`, "TaskRetried", { userId: user, taskId, attempt: 2, status: "pending" }, true);
      expect(await ids(user, "wording")).toEqual([]);
      await finish(user, taskId, [{ start: 0, end: 1, text: "the second attempt" }]);
      expect(await ids(user, "second")).toEqual([[taskId, 1]]);
      expect(await ids(user, "wording")).toEqual([]);
    });

    test("a deleted task's segments never appear again", async () => {
      const user = newId();
      const taskId = await createTask(user, "Gone", [{ start: 0, end: 1, text: "ephemeral words" }]);
      const kept = await createTask(user, "Kept", [{ start: 0, end: 1, text: "ephemeral but kept" }]);
      await deliver(`task-${taskId}`, "TaskDeleted", { userId: user, taskId, wasInFlight: false, attempt: 1 }, true);
      expect(await ids(user, "ephemeral")).toEqual([[kept, 1]]);
    });

    test("a task created without a transcript is found once it finishes", async () => {
      const user = newId();
      const taskId = await createTask(user, "Later", null);
      expect(await ids(user, "recognised")).toEqual([]);
      await finish(user, taskId, [{ start: 0, end: 1, text: "words recognised later" }]);
      expect(await ids(user, "recognised")).toEqual([[taskId, 1]]);
    });

    test("words that look like query syntax are plain words: AND, OR, NOT, NEAR, parentheses, colons", async () => {
      const user = newId();
      const taskId = await createTask(user, "Syntax", [{ start: 0, end: 1, text: "black OR white: NOT near (grey) AND words" }]);
      for (const q of ["OR", "NOT near", "(grey)", "white:", "words:*", "NEAR(grey)", "AND"])
        expect({ q, ids: await ids(user, q) }).toEqual({ q, ids: [[taskId, 1]] });
    });

    test("malformed queries and out-of-range pages are refused with the field named", async () => {
      const user = newId();
      const refused = async (query: { q?: string; page?: number; per_page?: number }, field: string) => {
        const error = await search.search(user, query).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ValidationFailedError);
        expect(Object.keys((error as ValidationFailedError).errors)).toContain(field);
      };
      for (const q of ['"unbalanced', "*", "a*b", "**", "\u0000", "x\u0000y", "", "   ", "!!!", '""*', "x".repeat(501)]) await refused({ q }, "q");
      await refused({}, "q");
      await refused({ q: "ok", page: 0 }, "page");
      await refused({ q: "ok", per_page: 101 }, "per_page");
      await refused({ q: "ok", per_page: 0 }, "per_page");
    });

    test("a text index moves with its collection when a rebuilt one replaces it, and goes when it is dropped", async () => {
      const name = `text_${newId()}`;
      const scope = newId();
      const live = store.collection(name);
      await live.createTextIndex({ scope: "owner", field: "words" });
      await live.createTextIndex({ scope: "owner", field: "words" }); // the same spec again: nothing to do
      await live.insertOne({ _id: "old", owner: scope, words: "stale words" });
      const shadow = store.collection(`${name}__rebuild`);
      await shadow.createTextIndex({ scope: "owner", field: "words" });
      await shadow.insertMany([
        { _id: "a", owner: scope, words: "fresh words" },
        { _id: "b", owner: scope + 1, words: "fresh words" },
      ]);
      await store.replaceCollections([{ target: name, source: `${name}__rebuild` }]);
      const swapped = store.collection(name);
      const words = async () =>
        (await swapped.searchText(scope, [{ words: ["words"], prefix: false }], { skip: 0, limit: 10, atMost: 100 })).hits.map((h) => h.document._id);
      expect(await words()).toEqual(["a"]);
      await swapped.insertOne({ _id: "c", owner: scope, words: "more words" });
      await swapped.replaceOne({ _id: "a" }, { _id: "a", owner: scope, words: "changed" });
      expect(await words()).toEqual(["c"]);
      await swapped.deleteOne({ _id: "c" });
      expect(await words()).toEqual([]);
      await store.dropCollection(name);
      await store.dropCollection(`${name}__rebuild`);
    });

    test("the port refuses what is not a word, so no text can reach the store's query language", async () => {
      const segments = store.collection("search_segments");
      for (const words of [['"'], ["a b"], ["*"], ["x:y"], [""], ["NEAR("], ["\u0000"]])
        await expect(segments.searchText(1, [{ words, prefix: false }], { skip: 0, limit: 1, atMost: 100 })).rejects.toBeInstanceOf(TypeError);
      await expect(segments.searchText(1, [], { skip: 0, limit: 1, atMost: 100 })).rejects.toBeInstanceOf(TypeError);
    });

    test("a transcript of several batches cut short by a crash between them is repaired by the event's redelivery", async () => {
      const user = newId();
      const lines = (word: string, n: number) => Array.from({ length: n }, (_, i) => ({ start: i, end: i + 1, text: `${word} line ${i}` }));
      const taskId = await createTask(user, "Crash", lines("before", segmentBatch + 10));
      // A store whose second batch of segments never arrives, as if the process died there.
      let batches = 0;
      const crashing = new Proxy(store, {
        get(target, key) {
          if (key !== "collection") return Reflect.get(target, key, target);
          return (name: string) => {
            const collection = target.collection(name);
            if (name !== "search_segments") return collection;
            return Object.assign(Object.create(collection), {
              insertMany: async (docs: never[]) => {
                if (++batches === 2) throw new Error("crashed between batches");
                await collection.insertMany(docs);
              },
            });
          };
        },
      });
      const edited: RecordedEvent = {
        id: crypto.randomUUID(),
        type: "TranscriptEdited",
        data: { taskId, userId: user, transcript: null, segments: lines("after", 2 * segmentBatch + 5) } as unknown as RecordedEvent["data"],
        metadata: { correlationId: "contract", causationId: null, userId: null, system: "test" },
        streamName: `task-${taskId}`,
        revision: 1,
        position: ++position,
        time: new Date().toISOString(),
      };
      await expect(applyDeclared(searchProjection, edited, crashing)).rejects.toThrow("crashed between batches");
      expect((await find(user, "after")).total).toBe(segmentBatch);
      for (let delivery = 0; delivery < 2; delivery++) {
        await applyDeclared(searchProjection, edited, store);
        expect((await find(user, "after")).total).toBe(2 * segmentBatch + 5);
        expect((await find(user, "before")).total).toBe(0);
        expect((await find(user, `after line ${2 * segmentBatch + 4}`)).data.map((r) => r.segment_id)).toEqual([2 * segmentBatch + 5]);
      }
    });

    test("a huge transcript is indexed in batches and a query of many clauses still answers", async () => {
      const user = newId();
      const segments = Array.from({ length: 5000 }, (_, i) => ({ start: i, end: i + 1, text: `segment number ${i} of the long recording` }));
      await createTask(user, "Long", segments);
      expect((await find(user, "recording")).total).toBe(5000);
      expect((await find(user, "4999")).data[0]!.segment_id).toBe(5000);
      const many = Array.from({ length: 32 }, () => "long").join(" ");
      expect((await find(user, many)).total).toBe(5000);
    });
  });
}
