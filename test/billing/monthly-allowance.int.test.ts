import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { grantMonthlyAllowances } from "../../src/billing/monthly-allowance-job.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

test("a new month grants each account its plan's allowance once and resets usage", async () => {
  const free = await app.register();
  const pro = await app.register();
  await app.setPlan(pro.id, "pro");
  const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1, 0, 5));
  expect(await grantMonthlyAllowances(app.adapters.eventStore, app.adapters.documents, nextMonth)).toBeGreaterThanOrEqual(2);
  const last = (await app.adapters.eventStore.readAll({ limit: 100_000 })).at(-1)!;
  await app.service.waitForProjections(last.position);
  expect(await grantMonthlyAllowances(app.adapters.eventStore, app.adapters.documents, nextMonth)).toBe(0);

  const freeBalance = ((await (await app.request("GET", "/api/user", { token: free.token })).json()) as { balance: Record<string, number> }).balance;
  const proBalance = ((await (await app.request("GET", "/api/user", { token: pro.token })).json()) as { balance: Record<string, number> }).balance;
  expect(freeBalance).toMatchObject({ allowance_remaining_seconds: 1800, used_seconds: 0 });
  expect(proBalance).toMatchObject({ allowance_remaining_seconds: 72000, used_seconds: 0 });
});
