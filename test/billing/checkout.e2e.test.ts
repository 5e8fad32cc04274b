import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signatureHeader, signWebhook } from "../../src/billing/webhook-signature.ts";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

/**
 * The payment flow against the started service over HTTP: the sandbox's Pay button makes the service
 * send itself a signed webhook through PUBLIC_URL, as a real provider would from outside. No
 * PAYMENT_WEBHOOK_SECRET: the secret derived from the service secret is used on both sides.
 */
let service: RunningService;
beforeAll(async () => {
  service = await startServiceProcess((url) => ({ PUBLIC_URL: url, ...manyRequestsPerToken }));
});
afterAll(() => service.stop());

type Json = Record<string, unknown>;
const call = (method: string, path: string, token?: string, init: RequestInit = {}) =>
  fetch(`${service.url}${path}`, {
    ...init,
    method,
    headers: { ...(init.headers as Record<string, string>), ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

async function register(): Promise<string> {
  const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const response = await call("POST", "/api/register", undefined, {
    body: JSON.stringify({ name: "Buyer", email, password: "password123", password_confirmation: "password123" }),
    headers: { "content-type": "application/json" },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

const planOf = async (token: string) =>
  ((await (await call("GET", "/api/user", token)).json()) as { subscription: { plan_key: string } }).subscription.plan_key;

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 2_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await Bun.sleep(50);
  }
}

describe("checkout through the sandbox provider (service process)", () => {
  test("pay for Pro monthly: the plan changes and a notification says so", async () => {
    const token = await register();
    expect(await planOf(token)).toBe("free");
    const options = (await (await call("GET", "/api/checkout/month", token)).json()) as Json;
    expect(options).toMatchObject({ provider: "sandbox", plan_key: "pro", price: 1_500 });
    expect(options.checkout_url as string).toStartWith(`${service.url}/sandbox/checkout/`);

    const page = await fetch(options.checkout_url as string);
    expect(await page.text()).toContain(">Pay</button>");
    const paid = await fetch(`${options.checkout_url}/complete`, { method: "POST", headers: { accept: "text/html" } });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain("Payment complete");

    expect(
      await eventually(
        () => planOf(token),
        (plan) => plan === "pro",
      ),
    ).toBe("pro");
    const notifications = await eventually(
      async () => (await (await call("GET", "/api/notifications", token)).json()) as { title: string; read_at: string | null }[],
      (list) => list.length > 0,
    );
    expect(notifications).toEqual([expect.objectContaining({ title: "Plan changed", message: "Your plan is now Pro, billed monthly.", read_at: null })]);
  });

  test("a forged webhook is refused and changes nothing", async () => {
    const token = await register();
    const options = (await (await call("GET", "/api/checkout/year", token)).json()) as Json;
    const body = JSON.stringify({
      id: "evt_forged",
      type: "checkout.completed",
      created: Math.floor(Date.now() / 1000),
      data: { reference: options.reference, plan: "year", amount: 15_000, currency: "USD" },
    });
    const response = await call("POST", "/api/webhooks/sandbox", undefined, {
      body,
      headers: { "content-type": "application/json", [signatureHeader]: signWebhook("guessed-secret", body) },
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as Json).message).toBeString();
    expect(await planOf(token)).toBe("free");

    // Nothing to wait out: a genuine payment made after the refusal comes later in the account's log. Once its
    // notification is there, the notifications (in log order) are past anything the forged webhook could have caused:
    // the monthly plan is the one change, and no yearly plan came before it.
    const monthly = (await (await call("GET", "/api/checkout/month", token)).json()) as Json;
    expect((await fetch(`${monthly.checkout_url}/complete`, { method: "POST", headers: { accept: "text/html" } })).status).toBe(200);
    const notifications = await eventually(
      async () => (await (await call("GET", "/api/notifications", token)).json()) as { message: string }[],
      (list) => list.length > 0,
      10_000,
    );
    expect(notifications.map((n) => n.message)).toEqual(["Your plan is now Pro, billed monthly."]);
    const user = (await (await call("GET", "/api/user", token)).json()) as { subscription: Json };
    expect(user.subscription).toMatchObject({ plan_key: "pro", billing_interval: "month" });
  });

  test("unknown plans are 404 and anonymous callers 401", async () => {
    const token = await register();
    expect((await call("GET", "/api/checkout/weekly", token)).status).toBe(404);
    expect((await call("GET", "/api/checkout/month")).status).toBe(401);
    expect((await call("GET", "/api/notifications")).status).toBe(401);
  });
});
