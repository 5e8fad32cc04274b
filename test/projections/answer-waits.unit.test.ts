import { describe, expect, test } from "bun:test";
import { withAnswerWaits } from "../../projections/answer-waits.ts";
import type { Projection, WaitForProjections } from "../../src/core/projection.ts";

const projection = (name: string, answerWaitMs?: number): Projection => ({ name, collections: [], eventTypes: [], apply: async () => {}, answerWaitMs });

/** A read-your-writes wait whose read models each reach the position when the test says so (or fail). */
function readModels() {
  const calls: (string[] | undefined)[] = [];
  const gates = new Map<string, { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void }>();
  const gate = (name: string) => {
    let entry = gates.get(name);
    if (!entry) {
      let resolve = () => {};
      let reject: (error: Error) => void = () => {};
      const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
      entry = { promise, resolve, reject };
      gates.set(name, entry);
    }
    return entry;
  };
  const waitFor: WaitForProjections = async (_position, names, withinMs) => {
    calls.push(names);
    const reached = Promise.all((names ?? ["everything"]).map((name) => gate(name).promise));
    if (withinMs === undefined) return void (await reached);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const givenUp = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("gave up")), withinMs)));
    await Promise.race([reached, givenUp]).finally(() => clearTimeout(timer));
  };
  return { waitFor, calls, reach: (name: string) => gate(name).resolve(), fail: (name: string) => gate(name).reject(new Error(`${name} gave up`)) };
}

const settled = async (promise: Promise<void>, withinMs: number) => {
  let done = false;
  void promise.then(() => (done = true));
  await Bun.sleep(withinMs);
  return done;
};

describe("a write's answer waits on its read models", () => {
  test("given no read model with an answer wait, the wait is the one given", () => {
    const { waitFor } = readModels();
    expect(withAnswerWaits(waitFor, [projection("tasks"), projection("users")])).toBe(waitFor);
  });

  test("given a bounded read model that has not caught up, the answer waits for the others in full and for it only its bound", async () => {
    const models = readModels();
    const wait = withAnswerWaits(models.waitFor, [projection("tasks"), projection("search", 40), projection("users")]);
    const answer = wait(7);
    expect(await settled(answer, 60)).toBe(false); // tasks and users have not reached 7
    expect(models.calls[0]).toEqual(["tasks", "users"]);
    models.reach("tasks");
    models.reach("users");
    expect(await settled(answer, 10)).toBe(false); // search gets its 40 ms from here
    expect(await settled(answer, 80)).toBe(true);
    expect(models.calls[1]).toEqual(["search"]);
  });

  test("given the bounded read model catches up early, the answer goes then", async () => {
    const models = readModels();
    const wait = withAnswerWaits(models.waitFor, [projection("tasks"), projection("search", 10_000)]);
    models.reach("tasks");
    const answer = wait(3);
    expect(await settled(answer, 20)).toBe(false);
    models.reach("search");
    expect(await settled(answer, 5)).toBe(true);
  });

  test("given the bounded read model's wait gives up, the answer still goes: the write is in the log", async () => {
    const models = readModels();
    const wait = withAnswerWaits(models.waitFor, [projection("tasks"), projection("search", 10_000)]);
    models.reach("tasks");
    const answer = wait(3);
    models.fail("search");
    expect(await settled(answer, 20)).toBe(true);
  });

  test("given a wait that names its read models, each is waited for in full", async () => {
    const models = readModels();
    const wait = withAnswerWaits(models.waitFor, [projection("tasks"), projection("search", 10)]);
    const answer = wait(3, ["search"]);
    expect(await settled(answer, 50)).toBe(false);
    models.reach("search");
    expect(await settled(answer, 5)).toBe(true);
  });

  test("given a read model the answer waits for in full fails, the answer fails", async () => {
    const models = readModels();
    const wait = withAnswerWaits(models.waitFor, [projection("tasks"), projection("search", 10)]);
    const answer = wait(3);
    models.fail("tasks");
    await expect(answer).rejects.toThrow("tasks gave up");
  });
});
