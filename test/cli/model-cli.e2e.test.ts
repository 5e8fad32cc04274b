/**
 * `bun run admin model ...` and `bun run admin config --check` as an operator types them, against a local stand-in for
 * Hugging Face (WHISPER_MODEL_BASE_URL): the real catalogue's pins, so what the server sends is never the pinned file.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { whisperModelNamed, whisperModels } from "../../src/transcription/whisper-models.ts";
import { closedAddress, startModelServer, type ModelServer } from "../support/model-server.ts";
import { runCli } from "../support/service-process.ts";

let dataDir: string;
let server: ModelServer | null = null;
const folder = () => join(dataDir, "models", "whisper");
/** What a pull left in a folder, which it may not have made at all. */
const leftIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "scribe-model-cli-"));
});
afterEach(() => {
  server?.stop();
  server = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe("bun run admin model", () => {
  test("pull: a file that is not the pinned one is refused with exit 1, and nothing is left under its name", async () => {
    server = startModelServer({ "ggml-tiny.en.bin": new TextEncoder().encode("<html>a login page</html>") });
    const { code, stdout, stderr } = await runCli("admin", ["model", "pull", "tiny.en"], { DATA_DIR: dataDir, WHISPER_MODEL_BASE_URL: server.url });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim()).toBe(
      `admin: model pull tiny.en: ${server.url}/ggml-tiny.en.bin offers 25 bytes where 77704715 are pinned: ` +
        "the server does not serve the pinned file: check WHISPER_MODEL_BASE_URL",
    );
    expect(leftIn(folder())).toEqual([]);
  }, 30_000);

  test("pull: a 404 and a refused connection each exit 1 with the reason and what to do", async () => {
    server = startModelServer({});
    const missing = await runCli("admin", ["model", "pull", "base.en"], { DATA_DIR: dataDir, WHISPER_MODEL_BASE_URL: `${server.url}/mirror/` });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toStartWith(`admin: model pull base.en: ${server.url}/mirror/ggml-base.en.bin answered HTTP 404 Not Found: check`);
    expect(server.requests.map((r) => r.path)).toEqual(["/mirror/ggml-base.en.bin"]);

    const offline = await runCli("admin", ["model", "pull", "base.en"], { DATA_DIR: dataDir, WHISPER_MODEL_BASE_URL: closedAddress() });
    expect(offline.code).toBe(1);
    expect(offline.stderr.trim()).toMatch(/^admin: model pull base\.en: cannot reach http:\/\/127\.0\.0\.1:\d+: .+: is this machine offline\? /);
    expect(leftIn(folder())).toEqual([]);
  }, 30_000);

  test("an unknown name or action is a usage error (exit 2) naming the models; list shows the catalogue", async () => {
    const unknown = await runCli("admin", ["model", "pull", "huge"], { DATA_DIR: dataDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toStartWith(`admin: unknown model "huge" (${whisperModels.map((m) => m.name).join(", ")})\n`);
    expect((await runCli("admin", ["model", "fetch", "base.en"], { DATA_DIR: dataDir })).code).toBe(2);

    const list = await runCli("admin", ["model", "list"], { DATA_DIR: dataDir });
    expect(list.code).toBe(0);
    const names = list.stdout.split("\n").slice(1, whisperModels.length + 1);
    expect(names.map((line) => line.split(/ +/)[0])).toEqual(whisperModels.map((m) => m.name));
    expect(list.stdout).toMatch(/\nbase\.en +148 +-\n/);
    expect(list.stdout).toContain(`\nmodels folder: ${folder()}\n`);
    expect(existsSync(folder())).toBe(false);
  }, 30_000);

  test("the usage text names every model in the catalogue", async () => {
    const help = await runCli("admin", ["help"], {});
    for (const { name } of whisperModels) expect(help.stdout).toContain(name);
  }, 30_000);
});

describe("bun run admin config --check with WHISPER_MODEL=<name>", () => {
  const env = () => ({ DATA_DIR: dataDir, TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: "base.en" });
  const modelPath = () => join(folder(), "ggml-base.en.bin");

  /** A sparse file with ggml's magic: the pinned size without writing 148 MB. */
  function writeModel(size: number): void {
    mkdirSync(folder(), { recursive: true });
    writeFileSync(modelPath(), "lmgg");
    const fd = openSync(modelPath(), "r+");
    ftruncateSync(fd, size);
    closeSync(fd);
  }

  test("refuses a name not pulled yet, saying how to pull it", async () => {
    const { code, stderr } = await runCli("admin", ["config", "--check"], env());
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `admin: configuration: WHISPER_MODEL ${modelPath()} does not exist: download a ggml model: \`bun run admin model pull base.en\` ` +
        "(`model list` names the others), or a file from https://huggingface.co/ggerganov/whisper.cpp",
    );
  }, 30_000);

  test("refuses a file of another size than the pinned one, and one that is not ggml", async () => {
    writeModel(1_000_000);
    const short = await runCli("admin", ["config", "--check"], env());
    expect(short.code).toBe(2);
    expect(short.stderr.trim()).toBe(
      `admin: configuration: WHISPER_MODEL base.en (${modelPath()}) is 1000000 bytes where base.en has 147964211: ` +
        "run `bun run admin model pull base.en` again",
    );
    writeFileSync(modelPath(), "<html>");
    const html = await runCli("admin", ["config", "--check"], env());
    expect(html.code).toBe(2);
    expect(html.stderr.trim()).toBe(`admin: configuration: WHISPER_MODEL ${modelPath()} is not a whisper.cpp ggml model (it does not begin with ggml's magic)`);
  }, 30_000);

  test("accepts the pulled file: ggml's magic and the pinned size", async () => {
    writeModel(whisperModelNamed("base.en")!.size);
    const { code, stdout, stderr } = await runCli("admin", ["config", "--check"], env());
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/\nWHISPER_MODEL +base\.en +environment\n/);
  }, 30_000);
});
