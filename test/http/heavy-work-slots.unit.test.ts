import { describe, expect, test } from "bun:test";
import { Semaphore } from "../../src/core/semaphore.ts";
import { holdsHeavyWork, idleTimeoutSeconds, releaseHeavyWork, waitForHeavyWork } from "../../src/http/heavy-work-slots.ts";

describe("waiting for a heavy-work slot", () => {
  test("the connection's idle timer is off while the body waits unread, and back once the slot is held", async () => {
    const slots = new Semaphore(1);
    const first = new Request("http://localhost/api/tasks", { method: "POST" });
    const second = new Request("http://localhost/api/tasks", { method: "POST" });
    const timers: [Request, number][] = [];
    const server = { requestIP: () => null, timeout: (request: Request, seconds: number) => void timers.push([request, seconds]) };

    await waitForHeavyWork(first, slots, server);
    const waiting = waitForHeavyWork(second, slots, server);
    await Bun.sleep(5);
    // Bun would close a connection idle 10 s: a transcript queued behind others lost its answer.
    expect(holdsHeavyWork(second)).toBe(false);
    expect(timers.at(-1)).toEqual([second, 0]);

    releaseHeavyWork(first);
    await waiting;
    expect(holdsHeavyWork(second)).toBe(true);
    expect(timers.at(-1)).toEqual([second, idleTimeoutSeconds]);
    releaseHeavyWork(second);
  });

  test("in process there is no server, and the slot is still taken", async () => {
    const request = new Request("http://localhost/api/tasks", { method: "POST" });
    await waitForHeavyWork(request, new Semaphore(1), null);
    expect(holdsHeavyWork(request)).toBe(true);
    releaseHeavyWork(request);
  });
});
