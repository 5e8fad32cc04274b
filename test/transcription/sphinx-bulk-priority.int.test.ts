// A bulk chunk's recogniser (its account already has one running) runs behind other work: its process's nice, as the
// process itself reads it. The "recogniser" is a script that reports its nice and fails, so the test needs no model.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { SphinxEngine } from "../../src/transcription/engines/sphinx.ts";
import { backgroundWorkNice } from "../../src/core/thread-priority.ts";

const work = mkdtempSync(join(tmpdir(), "scribe-sphinx-priority-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const binary = join(work, "reports-its-nice");
// Waits a moment first: the priority is set just after the process starts.
writeFileSync(binary, '#!/bin/sh\nsleep 0.2\necho "nice $(cut -d" " -f19 /proc/$$/stat)" >&2\nexit 1\n');
chmodSync(binary, 0o755);
const engine = new SphinxEngine({ binary, hmm: work, lm: join(work, "lm"), dict: join(work, "dict"), vocabularyCacheDir: join(work, "cache") });
const niceOf = (bulk: boolean) =>
  engine.recognize(join(work, "chunk.wav"), { durationMs: 1000, bulk }).then(
    () => null,
    (error: Error) => error.message,
  );

describe.if(process.platform === "linux")("the batch recogniser's priority", () => {
  test("given a bulk chunk, then its process runs at the background nice", async () => {
    expect(await niceOf(true)).toEndWith(`nice ${backgroundWorkNice}`);
  });

  test("given an account's first chunk, then its process runs at the service's own priority", async () => {
    expect(await niceOf(false)).toEndWith(`nice ${getPriority()}`);
  });
});
