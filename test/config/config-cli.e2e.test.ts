import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bunBinary, runCli } from "../support/service-process.ts";
import { settingNames } from "../../src/settings-schema.ts";

const root = join(import.meta.dir, "../..");

/** Runs `bun src/main.ts` in `env` (on top of the suite's own) until it exits, which a refused start does at once. */
async function startRefused(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-config-"));
  try {
    const child = Bun.spawn([bunBinary, "src/main.ts"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PORT: "0", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill(), 20_000);
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    clearTimeout(timer);
    return { code, stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("start-up refuses a wrong configuration", () => {
  test("a malformed value and an unknown setting: exit 1, every problem on its own line with the variable and the rule", async () => {
    const { code, stderr } = await startRefused({ PORT: "abc", METRICS: "maybe", RATE_LIMIT_PER_MINUTES: "5" });
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toEqual([
      'scribe: configuration: PORT must be an integer from 0 to 65535, got "abc"',
      'scribe: configuration: METRICS must be on or off, got "maybe"',
      "scribe: configuration: unknown setting RATE_LIMIT_PER_MINUTES (did you mean RATE_LIMIT_PER_MINUTE?)",
    ]);
  }, 30_000);

  test("an unknown name in one of Scribe's families alone stops it", async () => {
    const { code, stderr } = await startRefused({ TRANSCRIPTION_ENGNE: "whisper" });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe("scribe: configuration: unknown setting TRANSCRIPTION_ENGNE (did you mean TRANSCRIPTION_ENGINE?)");
  }, 30_000);
});

describe("bun run admin config", () => {
  // A DATA_DIR that must stay absent: the reference opens no store.
  const dataDir = join(tmpdir(), `scribe-config-absent-${process.pid}`);
  const env = { DATA_DIR: dataDir };

  test("prints the reference as a table, Markdown or JSON, without a DATA_DIR or a server", async () => {
    const table = await runCli("admin", ["config"], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain("\nserver:\n");
    expect(table.stdout).toMatch(/\n {2}PORT +integer 0\.\.65535 +3000 +The HTTP port/);
    const markdown = await runCli("admin", ["config", "--markdown"], env);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toStartWith("| group | variable | type | default | description |\n");
    const json = await runCli("admin", ["config", "--json"], env);
    expect(json.code).toBe(0);
    const entries = JSON.parse(json.stdout) as { name: string }[];
    expect(entries.map((e) => e.name).sort()).toEqual([...settingNames].sort());
    expect(existsSync(dataDir)).toBe(false);
  }, 30_000);

  test("--check: the values in effect with secrets hidden, or exit 2 with every problem", async () => {
    const good = await runCli("admin", ["config", "--check"], { ...env, PORT: "8123", METRICS_TOKEN: "t0ken-value" });
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/\nPORT +8123 +environment\n/);
    expect(good.stdout).toMatch(/\nMETRICS_TOKEN +\(set\) +environment\n/);
    expect(good.stdout).not.toContain("t0ken-value");
    const bad = await runCli("admin", ["config", "--check"], { ...env, PORT: "-1", S3_BUKET: "media" });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toEqual([
      'admin: configuration: PORT must be an integer from 0 to 65535, got "-1"',
      "admin: configuration: unknown setting S3_BUKET (did you mean S3_BUCKET?)",
    ]);
    expect(existsSync(dataDir)).toBe(false);
  }, 30_000);

  test("--check fails on every file, folder or program a setting names that is not there, saying which and what to do", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "scribe-named-"));
    try {
      const notAModel = join(scratch, "model.bin");
      writeFileSync(notAModel, "<html>404 Not Found</html>"); // what a wrong download link leaves behind
      const whisper = await runCli("admin", ["config", "--check"], { ...env, TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: notAModel });
      expect(whisper.code).toBe(2);
      expect(whisper.stderr.trim()).toBe(
        `admin: configuration: WHISPER_MODEL ${notAModel} is not a whisper.cpp ggml model (it does not begin with ggml's magic)`,
      );

      // Offered beside PocketSphinx once it is set: a model that is not a model is refused there too.
      const beside = await runCli("admin", ["config", "--check"], { ...env, WHISPER_MODEL: notAModel });
      expect(beside.code).toBe(2);
      expect(beside.stderr).toContain(`WHISPER_MODEL ${notAModel} is not a whisper.cpp ggml model`);

      const gone = await runCli("admin", ["config", "--check"], {
        ...env,
        TRANSCRIPTION_ENGINE: "whisper",
        WHISPER_MODEL: join(scratch, "ggml-base.en.bin"),
        EXPORT_FONT: join(scratch, "font.ttf"),
        YT_DLP_PATH: "yt-dlp-not-installed",
        TRANSCRIPTION_TMPDIR: notAModel,
      });
      expect(gone.code).toBe(2);
      const lines = gone.stderr.trim().split("\n");
      expect(lines).toHaveLength(4);
      expect(lines[0]).toBe(
        "admin: configuration: YT_DLP_PATH yt-dlp-not-installed is not a program on PATH: install yt-dlp (scripts/setup.sh does) for video links",
      );
      expect(lines[1]).toStartWith(`admin: configuration: EXPORT_FONT ${join(scratch, "font.ttf")} does not exist: install fonts-wqy-microhei`);
      expect(lines[2]).toBe(`admin: configuration: TRANSCRIPTION_TMPDIR ${notAModel} is not an existing folder`);
      expect(lines[3]).toStartWith(`admin: configuration: WHISPER_MODEL ${join(scratch, "ggml-base.en.bin")} does not exist: download a ggml model`);

      const sphinx = await runCli("admin", ["config", "--check"], { ...env, SPHINX_BINARY: "no-such-sphinx", SPHINX_HMM: notAModel, SPHINX_DICT: scratch });
      expect(sphinx.code).toBe(2);
      expect(
        sphinx.stderr
          .trim()
          .split("\n")
          .map((line) => line.split(" ").slice(2, 4).join(" ")),
      ).toEqual(["SPHINX_BINARY no-such-sphinx", `SPHINX_HMM ${notAModel}`, `SPHINX_DICT ${scratch}`]);

      // A process that does not transcribe needs none of it.
      const api = await runCli("admin", ["config", "--check"], { ...env, ROLES: "api", SPHINX_BINARY: "no-such-sphinx", EXPORT_FONT: notAModel + ".ttf" });
      expect(api.code).toBe(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(existsSync(dataDir)).toBe(false);
  }, 30_000);

  test("one format at a time", async () => {
    const both = await runCli("admin", ["config", "--json", "--markdown"], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("config takes one of --markdown, --json, --check");
  }, 30_000);
});
