/**
 * WalCheckpoints (src/core/wal-checkpoints.ts) with its checkpoints answered by the test instead of the thread: given
 * a checkpoint that finds the WAL long, the catch-up follows at once and the writes wait for it; when it answers, or
 * when it takes longer than `mostPauseMs`, they go on.
 */
import { describe, expect, test } from "bun:test";
import { WalCheckpoints, type CheckpointResult } from "../../src/core/wal-checkpoints.ts";

/** Checkpoints that wait for the test to answer each, in order. */
function answeredByTest() {
  const asked: PromiseWithResolvers<CheckpointResult>[] = [];
  const run = () => {
    const answer = Promise.withResolvers<CheckpointResult>();
    asked.push(answer);
    return answer.promise;
  };
  return { asked, run };
}

const fallBack = () => undefined;
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("WalCheckpoints", () => {
  test("given a checkpoint that finds the WAL long, when the catch-up answers, then the writes that waited go on", async () => {
    const { asked, run } = answeredByTest();
    const checkpoints = new WalCheckpoints("store.sqlite", fallBack, { everyMs: 0, catchUpFrames: 100 }, run);
    checkpoints.written();
    expect(checkpoints.writesPaused()).toBeNull();
    asked[0]!.resolve({ walFrames: 500, copiedFrames: 480 });
    await turn();
    expect(asked).toHaveLength(2);
    const paused = checkpoints.writesPaused();
    expect(paused).not.toBeNull();
    let wentOn = false;
    void paused!.then(() => (wentOn = true));
    await turn();
    expect(wentOn).toBe(false);
    asked[1]!.resolve({ walFrames: 520, copiedFrames: 520 });
    await checkpoints.settled();
    expect(wentOn).toBe(true);
    expect(checkpoints.writesPaused()).toBeNull();
    // No catch-up after a catch-up: its frames are counted until the next write starts the WAL over.
    expect(asked).toHaveLength(2);
  });

  test("given a catch-up that does not answer, the writes wait no longer than mostPauseMs", async () => {
    const { asked, run } = answeredByTest();
    const checkpoints = new WalCheckpoints("store.sqlite", fallBack, { everyMs: 0, catchUpFrames: 100, mostPauseMs: 30 }, run);
    checkpoints.written();
    asked[0]!.resolve({ walFrames: 500, copiedFrames: 500 });
    await turn();
    const started = performance.now();
    await checkpoints.writesPaused();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(checkpoints.writesPaused()).toBeNull();
    asked[1]!.resolve({ walFrames: 10, copiedFrames: 10 });
    await checkpoints.close();
  });

  test("given a short WAL, no catch-up and no pause", async () => {
    const { asked, run } = answeredByTest();
    const checkpoints = new WalCheckpoints("store.sqlite", fallBack, { everyMs: 0, catchUpFrames: 100 }, run);
    checkpoints.written();
    asked[0]!.resolve({ walFrames: 50, copiedFrames: 50 });
    await checkpoints.settled();
    expect(asked).toHaveLength(1);
    expect(checkpoints.writesPaused()).toBeNull();
  });
});
