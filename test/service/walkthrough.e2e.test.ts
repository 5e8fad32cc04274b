/**
 * The README's walkthrough, run as written: its commands, in bash, against the service as `npm start` serves it
 * (a newcomer's settings: the default request rate, no PUBLIC_URL), in a folder holding jfk.wav. Only the first
 * line's address is changed to the service's port. It must end with an SRT file of the speech.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedTestdata } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";

const root = join(import.meta.dir, "../..");
const clip = join(sharedTestdata, "jfk.wav");

/** The shell block between the README's walkthrough markers. */
export function walkthrough(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const block = /<!-- walkthrough -->\s*```sh\n([\s\S]*?)```\s*<!-- \/walkthrough -->/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no walkthrough block between <!-- walkthrough --> markers");
  return block;
}

const ready =
  prerequisite("../shared/testdata/jfk.wav", existsSync(clip), "put ../shared beside the repository") &&
  prerequisite("curl and jq", Bun.which("curl") !== null && Bun.which("jq") !== null, "apt-get install curl jq");

describe.skipIf(!ready)("the README's walkthrough", () => {
  let service: RunningService;
  let dir: string;
  beforeAll(async () => {
    service = await startServiceProcess();
    dir = mkdtempSync(join(tmpdir(), "scribe-walkthrough-"));
    copyFileSync(clip, join(dir, "jfk.wav"));
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("from register to a downloaded SRT, every command as written", async () => {
    const script = walkthrough();
    expect(script).toStartWith("URL=http://localhost:3000\n");
    const started = performance.now();
    const run = Bun.spawn(["bash", "-e", "-c", script.replace("URL=http://localhost:3000", `URL=${service.url}`)], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => run.kill(), 120_000);
    const [code, stdout, stderr] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
    clearTimeout(timer);
    console.log(`the walkthrough took ${Math.round(performance.now() - started)} ms`);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    // Step 7 saw the task finish, step 8 showed it, and step 10 printed the SRT's first cue.
    expect(stdout).toContain('"status":"finished"');
    expect(stdout).toContain('"status": "finished"');
    expect(stdout).toMatch(/^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n\S/m);
    const srt = readFileSync(join(dir, "transcript.srt"), "utf8");
    expect(srt).toMatch(/^1\r?\n00:00:/);
    expect(srt.split(/\r?\n\r?\n/).filter(Boolean).length).toBeGreaterThanOrEqual(2);
  }, 150_000);
});
