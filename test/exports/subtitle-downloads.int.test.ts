import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, segment, taskCommand, waitForStatus, type User } from "../support/tasks.ts";
import type { Segment } from "../../src/tasks/segments.ts";

/** srt and vtt cues shaped for reading, their limits as query parameters, and the json export, through HTTP. */

let app: TestApp;
let user: User;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  user = await app.register();
});
afterAll(() => app.close());

const long =
  "And so, my fellow Americans, ask not what your country can do for you; ask what you can do for your country. " +
  "My fellow citizens of the world, ask not what America will do for you, but what together we can do for the freedom of man.";
const segments = [segment(0, 14_000, long, { speaker: "Ann" }), segment(14_200, 14_600, "Yes.", { speaker: "Bo" }), segment(30_000, 31_000, "Done.")];

const download = (id: number, format: string, query = "") => app.request("GET", `/api/tasks/${id}/download/${format}${query}`, { token: user.token });

let taskId: number;
beforeAll(async () => {
  taskId = await createTask(app, user, { name: "Speech", segments, duration: 40 });
  await waitForStatus(app, user, taskId, "finished");
});

/** The cues of an srt or vtt file: their times and lines. */
function cuesOf(file: string): { start: string; end: string; lines: string[] }[] {
  return file
    .replace(/^WEBVTT\n\n/, "")
    .trimEnd()
    .split("\n\n")
    .map((cue) => {
      const [, times, ...lines] = cue.split("\n");
      const [start, end] = times!.split(" --> ");
      return { start: start!, end: end!, lines };
    });
}

const wordsOf = (cues: { lines: string[] }[]) => cues.flatMap((c) => c.lines.join(" ").split(" "));
const strip = (line: string) => line.replace(/^(<v [^>]*>|Ann: |Bo: )/, "");

describe("subtitles shaped for reading", () => {
  test("by default: two lines of at most 42 characters, at most 7 s a cue, a cue per speaker turn, every word kept", async () => {
    for (const format of ["srt", "vtt"]) {
      const response = await download(taskId, format);
      expect(response.status).toBe(200);
      const cues = cuesOf(await response.text());
      expect(cues.length).toBeGreaterThan(segments.length); // the 14-second segment is cut
      for (const cue of cues) {
        expect(cue.lines.length).toBeLessThanOrEqual(2);
        for (const line of cue.lines) expect(strip(line).length).toBeLessThanOrEqual(42);
      }
      const words = wordsOf(cues.map((c) => ({ lines: c.lines.map(strip) })));
      expect(words.join(" ")).toBe(`${long} Yes. Done.`);
      expect(cues.find((c) => c.lines[0]!.includes("Yes."))!.lines[0]).toBe(format === "srt" ? "Bo: Yes." : "<v Bo>Yes.");
    }
    // "Yes." (0.4 s) stays up a second, into the silence after it.
    expect(await (await download(taskId, "srt")).text()).toContain("00:00:14,200 --> 00:00:15,200\nBo: Yes.");
  });

  test("max_line_length, max_lines and max_cue_seconds shape the cues", async () => {
    const cues = cuesOf(await (await download(taskId, "srt", "?max_line_length=20&max_lines=1&max_cue_seconds=2")).text());
    for (const cue of cues) {
      expect(cue.lines).toHaveLength(1);
      expect(strip(cue.lines[0]!).length).toBeLessThanOrEqual(20);
      const ms = (clock: string) => {
        const [h, m, s] = clock.replace(",", ".").split(":").map(Number);
        return Math.round(((h! * 60 + m!) * 60 + s!) * 1000);
      };
      expect(ms(cue.end) - ms(cue.start)).toBeLessThanOrEqual(2000);
    }
    const wide = cuesOf(await (await download(taskId, "vtt", "?max_line_length=200&max_lines=5&max_cue_seconds=60")).text());
    expect(wide.length).toBeLessThan(cues.length);
    // Each request is shaped anew (light formats are never stored), so other limits never get another's file.
    const again = cuesOf(await (await download(taskId, "srt")).text());
    expect(again.length).toBeLessThan(cues.length);
  });

  test("a speaker's turn starts with their label even on one narrow line: a long name is cut, a long first word moves over", async () => {
    const name = "Annabelle Winterbottom-Smythe";
    const id = await createTask(app, user, { name: "Names", segments: [segment(0, 3000, "Extraordinarily well said.", { speaker: name })], duration: 5 });
    await waitForStatus(app, user, id, "finished");
    const narrow = cuesOf(await (await download(id, "srt", "?max_line_length=12&max_lines=1")).text());
    expect(narrow[0]!.lines).toEqual(["Anna…: Extra"]);
    expect(narrow.map((c) => c.lines[0]).join(" ")).toBe("Anna…: Extra ordinarily well said.");
    const two = cuesOf(await (await download(id, "srt", "?max_line_length=20&max_lines=2")).text());
    expect(two[0]!.lines[0]).toBe("Annabelle Winterbo…:");
  });

  test("a limit out of range, not a number, or given twice is 422 keyed by the parameter", async () => {
    const bad: [string, string][] = [
      ["max_line_length", "-5"],
      ["max_line_length", "9"],
      ["max_line_length", "201"],
      ["max_line_length", "99999999999999999999999"],
      ["max_line_length", "abc"],
      ["max_line_length", "4.5"],
      ["max_lines", "0"],
      ["max_lines", "6"],
      ["max_lines", ""],
      ["max_cue_seconds", "0.5"],
      ["max_cue_seconds", "61"],
      ["max_cue_seconds", "NaN"],
      ["max_cue_seconds", "Infinity"],
      ["max_cue_seconds", "1e400"],
      ["max_cue_seconds", "%FF"],
    ];
    for (const [name, value] of bad) {
      const response = await download(taskId, "srt", `?${name}=${value}`);
      expect({ name, value, status: response.status }).toEqual({ name, value, status: 422 });
      const body = await json<{ message: string; errors: Record<string, string[]> }>(response);
      expect(Object.keys(body.errors)).toEqual([name]);
    }
    const twice = await download(taskId, "vtt", "?max_lines=2&max_lines=3");
    expect(twice.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(twice)).errors).toEqual({ max_lines: ["The max lines field may be given once."] });
  });

  test("the limits are refused on formats without cues; unknown parameters are ignored", async () => {
    for (const format of ["txt", "csv", "json", "pdf"]) {
      const response = await download(taskId, format, "?max_lines=3&max_cue_seconds=5");
      expect(response.status).toBe(422);
      expect((await json<{ errors: Record<string, string[]> }>(response)).errors).toEqual({
        max_lines: [`The max lines field applies to srt and vtt only, not ${format}.`],
        max_cue_seconds: [`The max cue seconds field applies to srt and vtt only, not ${format}.`],
      });
    }
    expect((await download(taskId, "srt", "?__proto__=1&constructor=2&max_line_length=30")).status).toBe(200);
  });

  test("the OpenAPI document lists the limits with their bounds, and json among the formats", async () => {
    const document = await json<{ paths: Record<string, { get: { parameters: { name: string; in: string; schema: Record<string, unknown> }[] } }> }>(
      await app.request("GET", "/swagger/json"),
    );
    const parameters = document.paths["/api/tasks/{id}/download/{format}"]!.get.parameters;
    const query = Object.fromEntries(parameters.filter((p) => p.in === "query").map((p) => [p.name, p.schema]));
    expect(query.max_line_length).toMatchObject({ minimum: 10, maximum: 200 });
    expect(query.max_lines).toMatchObject({ minimum: 1, maximum: 5 });
    expect(query.max_cue_seconds).toMatchObject({ minimum: 1, maximum: 60 });
    expect(JSON.stringify(parameters.find((p) => p.name === "format")!.schema)).toContain('"json"');
  });
});

describe("the json export", () => {
  test("segments with id, start, end, text and speaker; no words for a transcript a client supplied", async () => {
    const response = await download(taskId, "json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-disposition")).toStartWith('attachment; filename="Speech.json"');
    const body = await json<{ segments: Record<string, unknown>[] }>(response);
    expect(body.segments).toEqual([
      { id: 1, start: 0, end: 14_000, text: long, speaker: "Ann" },
      { id: 2, start: 14_200, end: 14_600, text: "Yes.", speaker: "Bo" },
      { id: 3, start: 30_000, end: 31_000, text: "Done.", speaker: null },
    ]);
  });

  test("the engine's words, with times and confidence, when the transcript has them; and they time the subtitles", async () => {
    const id = await createTask(app, user, { name: "Recognised", segments: [segment(0, 3000, "placeholder")] });
    await waitForStatus(app, user, id, "finished");
    const words = [
      { text: "Ask", start: 100, end: 400, confidence: 0.91 },
      { text: "not.", start: 2500, end: 2900, confidence: null },
    ];
    const recognised: Segment[] = [{ id: 7, start: 0, end: 3000, text: "Ask not.", speaker: null, tokens: null, words }];
    await taskCommand(app, id, { type: "EditTranscript", transcript: await app.adapters.transcripts.save(id, recognised) });
    const body = await json<{ segments: unknown[] }>(await download(id, "json"));
    expect(body.segments).toEqual([{ id: 7, start: 0, end: 3000, text: "Ask not.", speaker: null, words }]);
    // Word times, not the segment's: the cue starts with "Ask" at 0.1 s, and the pause before "not." (2.1 s) ends it.
    expect(cuesOf(await (await download(id, "srt")).text())).toEqual([
      { start: "00:00:00,100", end: "00:00:01,100", lines: ["Ask"] },
      { start: "00:00:02,500", end: "00:00:03,000", lines: ["not."] },
    ]);
  });
});
