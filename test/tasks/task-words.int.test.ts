import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, segment, taskCommand, waitForStatus, type User } from "../support/tasks.ts";
import type { Segment, TranscriptWord } from "../../src/tasks/segments.ts";
import { membersPreparedOffThread } from "../../src/http/json-body-threads.ts";
import { librispeech, librispeechDir } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * `GET /api/tasks/{id}?include=words` through HTTP: the engine's timed words on request, the spec's shape otherwise,
 * a 422 for anything else asked for, each shape cached apart under the same ETag, and the words kept by a PATCH that
 * sends a segment back unchanged.
 */

let app: TestApp;
let user: User;
let taskId: number;

const ask: TranscriptWord[] = [
  { text: "Ask", start: 100, end: 400, confidence: 0.91 },
  { text: "not.", start: 2500, end: 2900, confidence: 0.21 },
];
const then: TranscriptWord[] = [{ text: "Then.", start: 3100, end: 3600, confidence: null }];
// A recognised transcript: what the transcription worker stores (words with media times and the engine's confidence).
const recognised: Segment[] = [
  { id: 1, start: 0, end: 3000, text: "Ask not.", speaker: null, tokens: null, words: ask },
  { id: 2, start: 3000, end: 4000, text: "Then.", speaker: null, tokens: null, words: then },
];

type Shown = { id: number; start: number; end: number; text: string; speaker: string | null; tokens: string[]; words?: TranscriptWord[] };
type Detail = { segments: Shown[] };

const read = (id: number, query = "", headers: Record<string, string> = {}) => app.request("GET", `/api/tasks/${id}${query}`, { token: user.token, headers });

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  user = await app.register();
  taskId = await createTask(app, user, { name: "Recognised", segments: [segment(0, 4000, "placeholder")], duration: 5 });
  await waitForStatus(app, user, taskId, "finished");
  await taskCommand(app, taskId, { type: "EditTranscript", transcript: await app.adapters.transcripts.save(taskId, recognised) });
});
afterAll(() => app.close());

describe("the task detail's timed words", () => {
  test("without include the segments are spec 2.1's: no words", async () => {
    const body = await json<Detail>(await read(taskId));
    expect(body.segments).toEqual([
      { id: 1, start: 0, end: 3000, text: "Ask not.", speaker: null, tokens: ["Ask", "not."] },
      { id: 2, start: 3000, end: 4000, text: "Then.", speaker: null, tokens: ["Then."] },
    ]);
  });

  test("include=words adds each segment's words with times and confidence, comma-separated or repeated", async () => {
    for (const query of ["?include=words", "?include=words,words", "?include=words&include=words"]) {
      const body = await json<Detail>(await read(taskId, query));
      expect(body.segments.map((s) => s.words)).toEqual([ask, then]);
      expect(body.segments[0]!.tokens).toEqual(["Ask", "not."]);
    }
  });

  test("a transcript a client supplied has empty words", async () => {
    const supplied = await createTask(app, user, { name: "Supplied", segments: [segment(0, 1000, "Hello there.")] });
    await waitForStatus(app, user, supplied, "finished");
    const body = await json<Detail>(await read(supplied, "?include=words"));
    expect(body.segments.map((s) => s.words)).toEqual([[]]);
  });

  test("anything else asked for is a 422 keyed include, hostile values included; unknown parameters are ignored", async () => {
    const bad = [
      "summary",
      "",
      "WORDS",
      "words,",
      "__proto__",
      "constructor",
      "words,__proto__",
      "x".repeat(100_000),
      "%FF",
      "%C3%28",
      "%00",
      "%E2%80",
      "words%2Cfoo",
    ];
    bad.push(Array(5000).fill("words").join(","), `words${"&include=words".repeat(8)}`, "words&include=words&include=%FF&include=words");
    for (const value of bad) {
      const response = await read(taskId, `?include=${value}`);
      const body = await json<{ message: string; errors: Record<string, string[]> }>(response);
      expect({ value: value.slice(0, 40), status: response.status }).toEqual({ value: value.slice(0, 40), status: 422 });
      expect(Object.keys(body.errors)).toEqual(["include"]);
      // Bad percent-encodings are refused as such (src/http/text-encoding.ts); other values by the list they must be from.
      if (!value.includes("%"))
        expect(body.errors.include).toEqual(["The include field takes a comma-separated list of: words (the parameter at most 8 times)."]);
    }
    const repeated = await read(taskId, "?include=words&include=mindmap");
    expect(repeated.status).toBe(422);
    expect((await read(taskId, "?__proto__=1&constructor=words&includes=x")).status).toBe(200);
  });

  test("each shape is cached apart, both under the task's version as ETag; a change shows in both", async () => {
    const plain = await read(taskId);
    const withWords = await read(taskId, "?include=words");
    const plainAgain = await read(taskId);
    const withWordsAgain = await read(taskId, "?include=words");
    expect((await json<Detail>(plainAgain)).segments[0]!.words).toBeUndefined();
    expect((await json<Detail>(withWordsAgain)).segments[0]!.words).toEqual(ask);
    await plain.arrayBuffer();
    await withWords.arrayBuffer();
    const etag = plain.headers.get("etag");
    expect(etag).toMatch(/^"\d+"$/);
    for (const response of [withWords, plainAgain, withWordsAgain]) expect(response.headers.get("etag")).toBe(etag);
    // Compressed, the answer is still the one asked for.
    const gzipped = await read(taskId, "?include=words", { "accept-encoding": "gzip" });
    expect(gzipped.headers.get("vary")).toContain("Accept-Encoding");
    expect(gzipped.headers.get("etag")).toBe(etag);

    // A rename moves the version: both shapes are read again, and either's ETag makes a change with If-Match.
    const renamed = await app.request("PATCH", `/api/tasks/${taskId}?include=words`, {
      token: user.token,
      json: { name: "Renamed" },
      headers: { "If-Match": etag! },
    });
    expect(renamed.status).toBe(200);
    const newer = renamed.headers.get("etag");
    expect(newer).not.toBe(etag);
    expect((await json<Detail & { name: string }>(renamed)).segments[0]!.words).toEqual(ask);
    for (const query of ["", "?include=words"]) {
      const response = await read(taskId, query);
      expect(response.headers.get("etag")).toBe(newer);
      expect((await json<{ name: string }>(response)).name).toBe("Renamed");
    }
    const stale = await app.request("PATCH", `/api/tasks/${taskId}`, { token: user.token, json: { name: "Late" }, headers: { "If-Match": etag! } });
    expect(stale.status).toBe(412);
  });

  test("so does a PATCH of a transcript over 1 MiB, whose segments were made ready on the body thread", async () => {
    const id = await createTask(app, user, { name: "Large recognised", segments: [segment(0, 4000, "placeholder")], duration: 5 });
    await waitForStatus(app, user, id, "finished");
    await taskCommand(app, id, { type: "EditTranscript", transcript: await app.adapters.transcripts.save(id, recognised) });
    const more = Array.from({ length: 30_000 }, (_, i) => ({ id: i + 3, start: 5000 + i * 1000, end: 5900 + i * 1000, text: `more words ${i}` }));
    const sent = [{ id: 1, start: 0, end: 3000, text: "Ask not." }, { id: 2, start: 3000, end: 4000, text: "Then, edited." }, ...more];
    const body = JSON.stringify({ segments: sent });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const before = membersPreparedOffThread();
    const response = await app.request("PATCH", `/api/tasks/${id}?include=words`, { token: user.token, body, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(200);
    expect(membersPreparedOffThread()).toBe(before + 1);
    const shown = (await json<Detail>(response)).segments;
    expect(shown).toHaveLength(30_002);
    expect(shown.slice(0, 2).map((s) => [s.text, s.words])).toEqual([
      ["Ask not.", ask],
      ["Then, edited.", []],
    ]);
    expect(shown[30_001]).toMatchObject({ id: 30_002, text: "more words 29999", words: [] });
  });

  test("a PATCH with segments keeps the words of those sent back unchanged; an edited one loses them", async () => {
    const shown = (await json<Detail>(await read(taskId))).segments;
    const sent = shown.map(({ id, start, end, text, speaker }) => ({ id, start, end, text, speaker }));
    sent[1] = { ...sent[1]!, text: "Then, at last." };
    sent[0] = { ...sent[0]!, speaker: "Ann" };
    const response = await app.request("PATCH", `/api/tasks/${taskId}?include=words`, { token: user.token, json: { segments: sent } });
    expect(response.status).toBe(200);
    const body = await json<Detail>(response);
    expect(body.segments.map((s) => [s.speaker, s.text, s.words])).toEqual([
      ["Ann", "Ask not.", ask],
      [null, "Then, at last.", []],
    ]);
    expect((await json<Detail>(await read(taskId))).segments[1]).toEqual({
      id: 2,
      start: 3000,
      end: 4000,
      text: "Then, at last.",
      speaker: null,
      tokens: ["Then,", "at", "last."],
    });
    // A bad include on PATCH is refused before anything changes.
    const refused = await app.request("PATCH", `/api/tasks/${taskId}?include=nope`, { token: user.token, json: { name: "Never" } });
    expect(refused.status).toBe(422);
    expect((await json<{ name: string }>(await read(taskId))).name).toBe("Renamed");
  });

  test("the OpenAPI document lists include with its values, and words on the segment", async () => {
    const document = await json<{
      paths: Record<string, { get: { parameters: { name: string; in: string; schema: Record<string, unknown> }[] } }>;
      components: { schemas: Record<string, unknown> };
    }>(await app.request("GET", "/swagger/json"));
    const include = document.paths["/api/tasks/{id}"]!.get.parameters.find((p) => p.name === "include" && p.in === "query");
    expect(include?.schema).toMatchObject({ type: "string", maxLength: 100 });
    expect(new RegExp(String(include?.schema.pattern)).test("words,words")).toBe(true);
    const task = JSON.stringify(document.components.schemas.Task);
    expect(task).toContain('"words"');
    expect(task).toContain('"confidence"');
  });

  const clip = "1089-134691-0001";
  const haveClip = prerequisite(
    `LibriSpeech clip ${clip}`,
    existsSync(join(librispeechDir, `${clip}.flac`)),
    "put the LibriSpeech clips under ../shared/testdata",
  );

  test.skipIf(!haveClip)(
    "a recording PocketSphinx recognised shows its words: in order, inside their segment, each with its confidence",
    async () => {
      const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/media`;
      await app.adapters.blobs.put(key, librispeech(clip)!.bytes, { contentType: "audio/flac" });
      const id = await createTask(app, user, { path: key, name: "Recognised for real" });
      await waitForStatus(app, user, id, "finished", 30_000);
      const { segments } = await json<Detail>(await read(id, "?include=words"));
      expect(segments.length).toBeGreaterThan(0);
      for (const shown of segments) {
        const words = shown.words!;
        // The tokens are the words as recognised, one for one.
        expect(words.map((w) => w.text)).toEqual(shown.tokens);
        words.forEach((word, i) => {
          expect(word.start).toBeGreaterThanOrEqual(i === 0 ? shown.start : words[i - 1]!.start);
          expect(word.end).toBeGreaterThanOrEqual(word.start);
          expect(word.end).toBeLessThanOrEqual(shown.end);
          expect(word.confidence).toBeGreaterThanOrEqual(0);
          expect(word.confidence).toBeLessThanOrEqual(1);
        });
      }
      expect((await json<Detail>(await read(id))).segments.every((shown) => shown.words === undefined)).toBe(true);
      // Recognising the clip takes seconds, more beside other tests: the test waits as long as its status wait does.
    },
    40_000,
  );
});
