import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import { signatureHeader, signWebhook } from "../../src/billing/webhook-signature.ts";
import { userStream } from "../../src/accounts/events.ts";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { freePort } from "../support/service-process.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

const webhookSecret = "whsec_checkout_int_test";
let app: TestApp;
let port: number;
let server: AnyElysia;
beforeAll(async () => {
  // A listening port as well, because the sandbox delivers its webhook over real HTTP to PUBLIC_URL.
  port = freePort();
  app = await startTestApp({ ...scriptPace, PAYMENT_WEBHOOK_SECRET: webhookSecret, PUBLIC_URL: `http://127.0.0.1:${port}` });
  server = app.service.app!.listen({ hostname: "127.0.0.1", port });
});
afterAll(async () => {
  await server.stop();
  await app.close();
});

type Options = {
  plan: string;
  plan_key: string;
  price: number;
  currency: string;
  interval: string;
  provider: string;
  checkout_url: string;
  reference: string;
  expires_at: string;
  customer: unknown;
};

async function options(token: string, plan: string): Promise<Options> {
  const response = await app.request("GET", `/api/checkout/${plan}`, { token });
  expect(response.status).toBe(200);
  return (await response.json()) as Options;
}

async function subscription(token: string): Promise<{ plan_key: string; billing_interval: string }> {
  return ((await (await app.request("GET", "/api/user", { token })).json()) as { subscription: { plan_key: string; billing_interval: string } }).subscription;
}

function webhook(body: Record<string, unknown>, sign: (raw: string) => string | null = (raw) => signWebhook(webhookSecret, raw)) {
  const raw = JSON.stringify(body);
  const signature = sign(raw);
  return app.request("POST", "/api/webhooks/sandbox", {
    body: raw,
    headers: { "content-type": "application/json", ...(signature ? { [signatureHeader]: signature } : {}) },
  });
}

const completed = (o: Pick<Options, "reference" | "plan" | "price" | "currency">) => ({
  id: `evt_${crypto.randomUUID()}`,
  type: "checkout.completed",
  created: Math.floor(Date.now() / 1000),
  data: { reference: o.reference, plan: o.plan, amount: o.price, currency: o.currency },
});

const planChanges = async (userId: number) => (await app.adapters.eventStore.readStream(userStream(userId))).filter((e) => e.type === "PlanChanged").length;

describe("GET /api/checkout/{plan}", () => {
  test("needs a token; an unknown plan is a JSON 404", async () => {
    expect((await app.request("GET", "/api/checkout/month")).status).toBe(401);
    const { token } = await app.register();
    const response = await app.request("GET", "/api/checkout/weekly", { token });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "Unknown plan. Choose test, month or year." });
  });

  test("the catalogue: test, month and year all buy Pro", async () => {
    const { token, id, email } = await app.register({ name: "Bea" });
    const month = await options(token, "month");
    expect(month).toMatchObject({
      provider: "sandbox",
      plan: "month",
      plan_key: "pro",
      plan_name: "Pro",
      monthly_allowance_seconds: 72_000,
      price: 1_500,
      currency: "USD",
      interval: "month",
      customer: { id, email, name: "Bea" },
    });
    expect(month.checkout_url).toBe(`http://127.0.0.1:${port}/sandbox/checkout/${month.reference}`);
    const ttl = Date.parse(month.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    expect(await options(token, "year")).toMatchObject({ plan: "year", plan_key: "pro", price: 15_000, interval: "year" });
    expect(await options(token, "test")).toMatchObject({ plan: "test", plan_key: "pro", price: 100, interval: "month" });
    expect((await options(token, "month")).reference).not.toBe(month.reference);
  });
});

describe("sandbox provider", () => {
  test("the checkout page shows the offer and a Pay form; an unknown reference is a 404", async () => {
    const { token, email } = await app.register();
    const { reference } = await options(token, "year");
    const page = await app.request("GET", `/sandbox/checkout/${reference}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("Pro, billed yearly");
    expect(html).toContain("150.00 USD");
    expect(html).toContain(email);
    expect(html).toContain(`action="/sandbox/checkout/${reference}/complete"`);
    expect((await app.request("GET", `/sandbox/checkout/f${reference.slice(1)}`)).status).toBe(404);
    expect((await app.request("POST", "/sandbox/checkout/nonsense/complete")).status).toBe(404);
  });

  test("paying sends the signed webhook over HTTP and the plan changes", async () => {
    const { token, id } = await app.register();
    const { reference } = await options(token, "month");
    const paid = await fetch(`http://127.0.0.1:${port}/sandbox/checkout/${reference}/complete`, { method: "POST" });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ success: true, webhook_status: 200 });
    expect(await subscription(token)).toMatchObject({ plan_key: "pro", billing_interval: "month" });
    // Paying the same checkout again (a repeated webhook) changes nothing.
    expect((await fetch(`http://127.0.0.1:${port}/sandbox/checkout/${reference}/complete`, { method: "POST" })).status).toBe(200);
    expect(await planChanges(id)).toBe(1);
  });
});

describe("POST /api/webhooks/sandbox", () => {
  test("a signed checkout.completed changes the plan once, however often it arrives", async () => {
    const { token, id } = await app.register();
    const event = completed(await options(token, "year"));
    for (let i = 0; i < 3; i++) {
      const response = await webhook(event);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
    }
    expect(await subscription(token)).toMatchObject({ plan_key: "pro", billing_interval: "year" });
    expect(await planChanges(id)).toBe(1);
    // Even after an operator moved the account back to Free, the old payment is not applied again.
    await handle(
      app.adapters.eventStore,
      userStream(id),
      userDecider,
      (state) =>
        userDecider.decide({ type: "ChangePlan", plan: "free", interval: "none", source: "operator", reference: null, now: new Date().toISOString() }, state),
      { metadata: { correlationId: "t", causationId: null, userId: null, system: "test" } },
    );
    expect((await webhook(event)).status).toBe(200);
    expect(await planChanges(id)).toBe(2);
  });

  test("forged, stale, unsigned or inconsistent deliveries are refused and change nothing", async () => {
    const { token, id } = await app.register();
    const offer = await options(token, "month");
    const event = completed(offer);
    const cases: [Response, number][] = [
      [await webhook(event, (raw) => signWebhook("not-the-secret", raw)), 401],
      [await webhook(event, (raw) => signWebhook(webhookSecret, raw, Math.floor(Date.now() / 1000) - 301)), 401],
      [await webhook(event, () => null), 400],
      [await webhook(event, () => "t=1,v1=zz"), 400],
      [await webhook({ ...event, data: { ...event.data, amount: 1 } }), 400],
      [await webhook({ ...event, data: { ...event.data, reference: `f${offer.reference.slice(1)}` } }), 400],
    ];
    for (const [response, status] of cases) {
      expect(response.status).toBe(status);
      expect(typeof ((await response.json()) as { message: unknown }).message).toBe("string");
    }
    // A body signed correctly but altered afterwards.
    const raw = JSON.stringify(event);
    const tampered = await app.request("POST", "/api/webhooks/sandbox", {
      body: raw.replace('"month"', '"year"'),
      headers: { [signatureHeader]: signWebhook(webhookSecret, raw) },
    });
    expect(tampered.status).toBe(401);
    expect(await subscription(token)).toMatchObject({ plan_key: "free" });
    expect(await planChanges(id)).toBe(0);
  });

  test("other event types are acknowledged and ignored", async () => {
    const response = await webhook({ id: "evt_other", type: "customer.updated", created: 0, data: {} });
    expect(response.status).toBe(200);
  });
});
