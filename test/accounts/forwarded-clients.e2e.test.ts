/**
 * Behind a load balancer (compose's Caddy) every connection comes from the proxy: the sign-in limits count the
 * client it names in X-Forwarded-For when, and only when, the connection comes from TRUSTED_PROXIES. Without that,
 * five bad registrations from anyone locked everyone out for a minute.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { awayFromMinuteBoundary } from "../support/minute-window.ts";

let behindProxy: RunningService;
let direct: RunningService;
beforeAll(async () => {
  [behindProxy, direct] = await Promise.all([startServiceProcess({ TRUSTED_PROXIES: "127.0.0.1" }), startServiceProcess()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([behindProxy?.stop(), direct?.stop()]);
});

const badRegistration = (service: RunningService, forwardedFor: string) =>
  fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
    body: JSON.stringify({ name: "Ada" }),
  }).then((answer) => answer.status);

const sixFrom = async (service: RunningService, forwardedFor: string) => {
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push(await badRegistration(service, forwardedFor));
  return statuses;
};

describe("registrations through a trusted proxy", () => {
  test("each forwarded client has its own five a minute; a client cannot escape its count by writing the header itself", async () => {
    await awayFromMinuteBoundary();
    expect(await sixFrom(behindProxy, "198.51.100.1")).toEqual([422, 422, 422, 422, 422, 429]);
    expect(await sixFrom(behindProxy, "198.51.100.2")).toEqual([422, 422, 422, 422, 422, 429]);
    // What the client wrote is left of what the proxy appended: only the proxy's entry counts.
    expect(await badRegistration(behindProxy, "203.0.113.50, 198.51.100.1")).toBe(429);
  });

  test("from a connection that is not a trusted proxy, X-Forwarded-For is not believed", async () => {
    await awayFromMinuteBoundary();
    const first = await sixFrom(direct, "198.51.100.1");
    expect(first).toEqual([422, 422, 422, 422, 422, 429]);
    expect(await badRegistration(direct, "198.51.100.2")).toBe(429);
  });
});
