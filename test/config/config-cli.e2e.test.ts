import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bunBinary, runCli } from "../support/service-process.ts";
import { settingNames } from "../../src/config/schema.ts";

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

  test("one format at a time", async () => {
    const both = await runCli("admin", ["config", "--json", "--markdown"], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("config takes one of --markdown, --json, --check");
  }, 30_000);
});
