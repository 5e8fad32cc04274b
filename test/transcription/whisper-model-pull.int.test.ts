/**
 * `admin model pull` against a local stand-in for Hugging Face: a small fake model whose SHA-256 the test pins through
 * its own catalogue. A full pull, a pull cut half-way and resumed with a Range request, a server that ignores ranges,
 * a wrong hash, a 404 and a refused connection, and the progress it prints.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runModelCommand, type ModelCommandResult } from "../../src/cli/model-commands.ts";
import type { ProgressStream } from "../../src/cli/model-progress.ts";
import { DownloadError, downloadVerified } from "../../src/transcription/verified-download.ts";
import type { WhisperModel } from "../../src/transcription/whisper-models.ts";
import { closedAddress, startModelServer, type ModelServer } from "../support/model-server.ts";

// ggml's magic, then bytes that differ along the file so a misplaced resume would change the hash.
const bytes = new Uint8Array(300_000).map((_, i) => (i * 7 + (i >> 8)) % 256);
bytes.set(new TextEncoder().encode("lmgg"), 0);
const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const fake: WhisperModel = { name: "fake.en", file: "ggml-fake.en.bin", size: bytes.length, sha256 };

let dataDir: string;
let server: ModelServer | null = null;
const folder = () => join(dataDir, "models", "whisper");
/** What a pull left in a folder, which it may not have made at all. */
const leftIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
const finalPath = () => join(folder(), fake.file);

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "scribe-models-"));
});
afterEach(() => {
  server?.stop();
  server = null;
  rmSync(dataDir, { recursive: true, force: true });
});

function capture(isTTY = false): ProgressStream & { text: () => string } {
  let text = "";
  return { isTTY, write: (chunk: string) => void (text += chunk), text: () => text };
}

function pull(baseUrl: string, catalogue: WhisperModel[] = [fake], progress = capture()): Promise<ModelCommandResult> {
  return runModelCommand({ type: "model-pull", name: "fake.en" }, { env: { DATA_DIR: dataDir, WHISPER_MODEL_BASE_URL: baseUrl }, catalogue, progress });
}

const errorOf = (result: ModelCommandResult) => (result.code === 1 ? result.error : `exit 0: ${result.lines.join("\n")}`);

describe("admin model pull", () => {
  test("fetches the file into DATA_DIR/models/whisper, verified, with progress lines when stderr is not a terminal", async () => {
    server = startModelServer({ [fake.file]: bytes });
    const progress = capture();
    const result = await pull(`${server.url}/`, [fake], progress);
    expect(result).toEqual({
      code: 0,
      lines: [`fake.en saved to ${finalPath()} (300000 bytes fetched; SHA-256 verified); use it with WHISPER_MODEL=fake.en TRANSCRIPTION_ENGINE=whisper`],
    });
    expect(new Uint8Array(readFileSync(finalPath()))).toEqual(bytes);
    expect(readdirSync(folder())).toEqual([fake.file]);
    expect(server.requests).toEqual([{ path: `/${fake.file}`, range: null, sent: bytes.length }]);
    const lines = progress.text().trim().split("\n");
    expect(lines[0]).toBe("fake.en: 0.0% (0.0 of 0.3 MB)");
    expect(lines.at(-1)).toBe("fake.en: 100.0% (0.3 of 0.3 MB)");

    // Again: the file is there and verified, nothing is fetched.
    const again = await pull(server.url);
    expect(again.code === 0 && again.lines[0]).toStartWith(`fake.en is already at ${finalPath()} (size and SHA-256 verified)`);
    expect(server.requests).toHaveLength(1);
  });

  test("on a terminal, a bar redrawn in place", async () => {
    server = startModelServer({ [fake.file]: bytes });
    const progress = capture(true);
    expect((await pull(server.url, [fake], progress)).code).toBe(0);
    expect(progress.text()).toStartWith("\rfake.en [");
    expect(progress.text()).toEndWith(`[${"#".repeat(30)}] 100.0% 0.3/0.3 MB\n`);
  });

  test("a connection dropped half-way keeps the .part file, and the next pull asks for the rest only (HTTP Range)", async () => {
    server = startModelServer({ [fake.file]: bytes }, { cutFirst: true });
    const cut = await pull(server.url);
    expect(errorOf(cut)).toMatch(/^model pull fake\.en: the download stopped at \d+ of 300000 bytes \(.+\): run the same command again: it resumes/);
    expect(existsSync(finalPath())).toBe(false);
    const kept = readFileSync(`${finalPath()}.part`).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(150_000);

    const resumed = await pull(server.url);
    expect(resumed.code === 0 && resumed.lines[0]).toStartWith(
      `fake.en saved to ${finalPath()} (${bytes.length - kept} bytes fetched, resumed after ${kept} bytes; SHA-256 verified)`,
    );
    expect(server.requests[1]).toEqual({ path: `/${fake.file}`, range: `bytes=${kept}-`, sent: bytes.length - kept });
    expect(new Uint8Array(readFileSync(finalPath()))).toEqual(bytes);
    expect(readdirSync(folder())).toEqual([fake.file]);
  });

  test("a connection that stops sending counts as cut after a while, and keeps what arrived", async () => {
    server = startModelServer({ [fake.file]: bytes }, { hangFirst: true });
    mkdirSync(folder(), { recursive: true });
    const target = { url: `${server.url}/${fake.file}`, path: finalPath(), size: fake.size, sha256 };
    const error = await downloadVerified(target, { stallMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as DownloadError).failure).toBe("cut");
    expect((error as DownloadError).message).toMatch(/^the download stopped at \d+ of 300000 bytes \(nothing arrived for a while\)$/);
    const kept = readFileSync(`${finalPath()}.part`).length;
    expect(kept).toBeGreaterThan(0);
    expect(await downloadVerified(target)).toEqual({ resumedFrom: kept, fetched: bytes.length - kept });
    expect(new Uint8Array(readFileSync(finalPath()))).toEqual(bytes);
  });

  test("a server that ignores Range sends the whole file again, which replaces the part", async () => {
    mkdirSync(folder(), { recursive: true });
    writeFileSync(`${finalPath()}.part`, new Uint8Array(1000).fill(9)); // wrong bytes: a restart must not keep them
    server = startModelServer({ [fake.file]: bytes }, { ignoreRange: true });
    const result = await pull(server.url);
    expect(result.code === 0 && result.lines[0]).toStartWith(`fake.en saved to ${finalPath()} (300000 bytes fetched; SHA-256 verified)`);
    expect(server.requests[0]!.range).toBe("bytes=1000-");
    expect(new Uint8Array(readFileSync(finalPath()))).toEqual(bytes);
  });

  test("bytes whose SHA-256 is not the pinned one are refused and removed: nothing under the final name", async () => {
    server = startModelServer({ [fake.file]: bytes });
    const result = await pull(server.url, [{ ...fake, sha256: "0".repeat(64) }]);
    expect(errorOf(result)).toBe(
      `model pull fake.en: the file from ${server.url}/${fake.file} does not have the pinned SHA-256 ${"0".repeat(64)}: it was removed: ` +
        "the server does not serve the pinned file: check WHISPER_MODEL_BASE_URL, or try again later",
    );
    expect(leftIn(folder())).toEqual([]);
  });

  test("a file of another size is refused before it is written", async () => {
    server = startModelServer({ [fake.file]: bytes.subarray(0, 1000) });
    const result = await pull(server.url);
    expect(errorOf(result)).toStartWith(`model pull fake.en: ${server.url}/${fake.file} offers 1000 bytes where 300000 are pinned`);
    expect(leftIn(folder())).toEqual([]);
  });

  test("a 404 says which URL and what to check", async () => {
    server = startModelServer({});
    const result = await pull(server.url);
    expect(errorOf(result)).toBe(
      `model pull fake.en: ${server.url}/${fake.file} answered HTTP 404 Not Found: ` +
        "check WHISPER_MODEL_BASE_URL (unset: Hugging Face's whisper.cpp repository), then run the command again",
    );
    expect(leftIn(folder())).toEqual([]);
  });

  test("offline (connection refused): a clear message, nothing written", async () => {
    const address = closedAddress();
    const result = await pull(address);
    expect(errorOf(result)).toStartWith(`model pull fake.en: cannot reach ${address}: `);
    expect(errorOf(result)).toEndWith(
      "is this machine offline? Check its network (or set WHISPER_MODEL_BASE_URL to a mirror you can reach), then run the command again",
    );
    expect(leftIn(folder())).toEqual([]);
  });

  test("model list: each model's state in this DATA_DIR", async () => {
    server = startModelServer({ [fake.file]: bytes }, { cutFirst: true });
    const other: WhisperModel = { ...fake, name: "other", file: "ggml-other.bin" };
    const env = { DATA_DIR: dataDir, WHISPER_MODEL_BASE_URL: server.url };
    expect((await pull(server.url, [fake, other])).code).toBe(1);
    const listed = await runModelCommand({ type: "model-list" }, { env, catalogue: [fake, other], progress: capture() });
    expect(listed.code === 0 && listed.lines).toEqual([
      "NAME     SIZE_MB  STATE",
      expect.stringMatching(/^fake\.en {2}0 {8}partial \(\d+%\): pull resumes it$/),
      "other    0        -",
      "",
      `models folder: ${folder()}`,
      "fetch one: bun run admin model pull <name>",
    ]);
  });
});
