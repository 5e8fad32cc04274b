import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

/**
 * Exports of the running service (`bun src/main.ts`, over HTTP), read by the tools people use:
 * ffmpeg for srt and vtt, pdftotext (poppler-utils) for pdf, LibreOffice for docx (converted to pdf
 * once: it takes seconds), DuckDB's CSV reader for csv. The transcript holds what breaks files: CJK,
 * Hangul, emoji, right-to-left text, control characters, markup, a 10,000-character segment, times
 * past 99 minutes. `npm test` installs the tools (scripts/setup.sh --test).
 */

const tools = ["ffmpeg", "pdftotext", "soffice"];
for (const tool of tools)
  if (!Bun.which(tool)) throw new Error(`${tool} is missing: run scripts/setup.sh --test (poppler-utils, libreoffice-writer-nogui, ffmpeg)`);

const long = `${"x".repeat(9_990)} long end.`;
const segments = [
  { start: 0, end: 2_000, text: 'Hello, world. Quotes "here", commas, and a <b>tag</b> --> arrow.', speaker: "Ann" },
  { start: 2_000, end: 4_000, text: "你好世界，这是中文转录。", speaker: "王伟" },
  { start: 4_000, end: 6_000, text: "こんにちは、カタカナ・テスト。", speaker: null },
  { start: 6_000, end: 8_000, text: "안녕하세요 세계", speaker: "Min-jun" },
  { start: 8_000, end: 10_000, text: "שלום עולם and مرحبا بالعالم", speaker: null },
  { start: 10_000, end: 12_000, text: "emoji 😀🎉 ctrl\u0001\u0007\u001b here\nsecond line\n\nthird", speaker: "Bo" },
  { start: 12_000, end: 20_000, text: long, speaker: null },
  { start: 6_000_000, end: 6_002_500, text: "One hour forty minutes in.", speaker: "Ann" },
];

let service: RunningService;
let token: string;
let taskId: number;
let dir: string;

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
const save = async (name: string, response: Response) => {
  const path = join(dir, name);
  writeFileSync(path, new Uint8Array(await response.arrayBuffer()));
  return path;
};
function run(cmd: string[], env: Record<string, string> = {}) {
  const result = Bun.spawnSync(cmd, { cwd: dir, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "scribe-exports-"));
  service = await startServiceProcess((url) => ({ PUBLIC_URL: url, ...manyRequestsPerToken }));
  const registered = await fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "E2E",
      email: `e2e-${crypto.randomUUID().slice(0, 8)}@example.com`,
      password: "correct horse battery",
      password_confirmation: "correct horse battery",
    }),
  });
  token = ((await registered.json()) as { token: string }).token;
  const created = await api("/api/tasks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ disk: "objstore", name: "Entrevista 会议 — 🎙", path: "uploads/x.mp3", segments }),
  });
  expect(created.status).toBe(201);
  taskId = ((await created.json()) as { id: number }).id;
  for (let i = 0; ; i++) {
    const task = (await (await api(`/api/tasks/${taskId}`)).json()) as { status: string };
    if (task.status === "finished") break;
    if (i > 200) throw new Error(`task is ${task.status}`);
    await Bun.sleep(25);
  }
});
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** ffmpeg reads subtitles and writes them as ASS: every cue becomes one Dialogue line, and any complaint fails. */
function ffmpegDialogues(input: string): string[] {
  const result = run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", input, "-c:s", "ass", `${input}.ass`]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return readFileSync(`${input}.ass`, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("Dialogue:"));
}

describe("subtitles read by ffmpeg", () => {
  for (const format of ["srt", "vtt"]) {
    test(`${format}: every cue, times past 99 minutes, CJK, RTL, emoji and the long segment intact, in lines of at most 42 characters`, async () => {
      const response = await api(`/api/tasks/${taskId}/download/${format}`);
      expect(response.status).toBe(200);
      const dialogues = ffmpegDialogues(await save(`t.${format}`, response));
      // Cues shaped for reading: a cue per speaker turn here, and the 10,000-character word cut into line-wide pieces.
      const text = (dialogue: string) => dialogue.split(",").slice(9).join(",").trimEnd();
      const [first, second, third, fourth, fifth, sixth, ...rest] = dialogues.map(text);
      expect(first).toContain("Hello, world."); // srt markup is shown as text, vtt's is escaped
      expect(first).not.toContain("{\\b1}");
      expect(second).toContain("你好世界，这是中文转录。");
      expect(third).toContain("こんにちは、カタカナ・テスト。");
      expect(fourth).toContain("안녕하세요 세계");
      expect(fifth).toContain("שלום עולם and مرحبا بالعالم");
      expect(sixth).toContain("emoji 😀🎉 ctrl here second line third");
      const pieces = rest.slice(0, -1);
      expect(pieces.join("").replace(/\\N|\s/g, "")).toBe(long.replace(/\s/g, ""));
      for (const lines of pieces.map((p) => p.split("\\N"))) {
        expect(lines.length).toBeLessThanOrEqual(2);
        for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(42);
      }
      expect(dialogues.at(-1)).toStartWith("Dialogue: 0,1:40:00.00,1:40:02.50,");
    });
  }
});

describe("csv read by DuckDB's CSV reader, as an analyst loads it", () => {
  test("one row per segment, every field as written", async () => {
    const path = await save("t.csv", await api(`/api/tasks/${taskId}/download/csv`));
    const db = await DuckDBInstance.create(":memory:");
    const connection = await db.connect();
    // Strict RFC 4180: quoted fields with commas, quotes and line breaks; a malformed row is an error, not a guess.
    const read = await connection.runAndReadAll(
      `SELECT * FROM read_csv('${path}', header = false, all_varchar = true, delim = ',', quote = '"', escape = '"', strict_mode = true, null_padding = false)`,
    );
    const rows = read.getRows().map((row) => row.map((value) => (value === null ? "" : String(value))));
    connection.closeSync();
    expect(rows[0]).toEqual(["id", "start", "end", "start_ms", "end_ms", "speaker", "text"]);
    expect(rows).toHaveLength(segments.length + 1);
    expect(rows[1]![6]).toBe(segments[0]!.text);
    expect(rows[2]!.slice(5)).toEqual(["王伟", "你好世界，这是中文转录。"]);
    expect(rows[6]![6]).toBe("emoji 😀🎉 ctrl here\r\nsecond line\r\n\r\nthird");
    expect(rows[7]![6]).toBe(long);
    expect(rows[8]!.slice(1, 5)).toEqual(["01:40:00.000", "01:40:02.500", "6000000", "6002500"]);
  });
});

/** pdftotext's words, one string: line breaks and the PDF's layout columns don't matter. */
const words = (path: string) => {
  const result = run(["pdftotext", "-enc", "UTF-8", path, "-"]);
  expect(result.code).toBe(0);
  return result.stdout.replace(/\s+/g, " ");
};

describe("heavy formats", () => {
  test("pdf: made ahead, fetched by its signed URL, read by pdftotext with every script", async () => {
    let ready: { status: string; url: string } | null = null;
    for (let i = 0; i < 400 && !ready; i++) {
      const response = await api(`/api/tasks/${taskId}/download/pdf`, { headers: { accept: "application/json" } });
      if (response.status === 200) ready = (await response.json()) as { status: string; url: string };
      else await Bun.sleep(50);
    }
    expect(ready?.status).toBe("ready");
    const file = await fetch(ready!.url); // signed: no token
    expect(file.status).toBe(200);
    const path = await save("t.pdf", file);
    const text = words(path);
    for (const expected of [
      "Entrevista 会议",
      "Transcript",
      "Ann: Hello, world.",
      "王伟: 你好世界，这是中文转录。",
      "こんにちは、カタカナ・テスト。",
      "Min-jun: 안녕하세요 세계",
      "Bo: emoji",
      "ctrl here second line third",
      "long end.",
      "One hour forty minutes in.",
    ]) {
      expect(text).toContain(expected);
    }
    expect(text.match(/x/g)!.length).toBeGreaterThanOrEqual(9_990);
    expect(text).toMatch(/[\u05d0-\u05ea]/); // Hebrew drawn with the fallback font
    expect(text).toMatch(/[\u0600-\u06ff\ufe70-\ufeff]/); // Arabic too (shaped: presentation forms)
    const fonts = run(["pdffonts", path]).stdout;
    expect(fonts).toContain("WenQuanYiMicroHei");
    expect(readFileSync(path).length).toBeLessThan(300_000); // the 5 MB CJK font is subset
  });

  test("docx: the file itself for a non-JSON request, converted by LibreOffice and read back", async () => {
    let response: Response | null = null;
    for (let i = 0; i < 400; i++) {
      response = await api(`/api/tasks/${taskId}/download/docx`);
      if (response.status === 200) break;
      expect(response.status).toBe(202);
      await Bun.sleep(50);
    }
    expect(response!.status).toBe(200);
    expect(response!.headers.get("content-disposition")).toContain("filename*=UTF-8''Entrevista%20%E4%BC%9A%E8%AE%AE%20%E2%80%94%20%F0%9F%8E%99.docx");
    const path = await save("t.docx", response!);
    const converted = run(["soffice", "--headless", "--norestore", "--convert-to", "pdf", "--outdir", dir, path], { HOME: dir });
    expect(converted.code).toBe(0);
    const text = words(join(dir, "t.pdf"));
    for (const expected of [
      "Entrevista 会议",
      "Transcript",
      "Ann: Hello, world.",
      "王伟: 你好世界，这是中文转录。",
      "こんにちは、カタカナ・テスト。",
      "안녕하세요 세계",
      "emoji",
      "long end.",
      "One hour forty minutes in.",
    ]) {
      expect(text).toContain(expected);
    }
  }, 120_000);
});
