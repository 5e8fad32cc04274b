import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { guardAnswers } from "../../src/http/last-resort.ts";
import { answeringMsPerTurn, answersPerTurn, pacedAnswer } from "../../src/http/answer-pacing.ts";

/** Starts `count` answers in one turn; how many settled before that turn's immediates ran, and the answers in order. */
async function burst(count: number, answer: (i: number) => Response | Promise<Response>) {
  let turnOver = false;
  setImmediate(() => {
    turnOver = true;
  });
  let beforeTurnEnded = 0;
  const settled: number[] = [];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await answer(i);
      if (!turnOver) beforeTurnEnded++;
      settled.push(i);
    }),
  );
  return { beforeTurnEnded, settled };
}

describe("answers in one turn of the event loop (answer-pacing.ts)", () => {
  test("the first few go out at once, the rest in the next turn, in the order they came", async () => {
    const { beforeTurnEnded, settled } = await burst(answersPerTurn + 5, () => pacedAnswer(new Response("ok")));
    expect(beforeTurnEnded).toBe(answersPerTurn);
    expect(settled).toEqual(Array.from({ length: answersPerTurn + 5 }, (_, i) => i));
  });

  test("once the turn has spent its time on answers, the rest wait for the next turn, though fewer than the count went out", async () => {
    const busyFor = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    // Each answer costs 0.3 of the turn's time: the answers asked for after it has passed wait.
    const askedAt: number[] = [];
    const { beforeTurnEnded, settled } = await burst(6, (i) => {
      if (i > 0) busyFor(answeringMsPerTurn * 0.3);
      askedAt.push(performance.now());
      return pacedAnswer(new Response("ok"));
    });
    const inTime = askedAt.filter((at) => at - askedAt[0]! <= answeringMsPerTurn).length;
    expect(inTime).toBeLessThan(6);
    expect(beforeTurnEnded).toBe(inTime);
    expect(settled).toEqual([0, 1, 2, 3, 4, 5]);
  });

  test("through the app's outermost layer, compressed answers included", async () => {
    const large = { items: Array.from({ length: 400 }, (_, i) => ({ i, text: "a compressible answer" })) };
    const app = guardAnswers(
      new Elysia().get("/", () => ({ ok: true })).get("/large", () => large),
      [],
    );
    const statuses: number[] = [];
    const { beforeTurnEnded } = await burst(answersPerTurn + 5, async (i) => {
      const path = i % 2 === 0 ? "/large" : "/";
      const response = await app.handle(new Request(`http://localhost${path}`, { headers: { "accept-encoding": "gzip" } }));
      statuses.push(response.status);
      if (path === "/large") expect(response.headers.get("content-encoding")).toBe("gzip");
      return response;
    });
    expect(statuses).toEqual(Array(answersPerTurn + 5).fill(200));
    expect(beforeTurnEnded).toBeLessThanOrEqual(answersPerTurn);
  });
});
