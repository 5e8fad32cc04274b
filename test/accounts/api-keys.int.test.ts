import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

const createKey = async (token: string, name = "ci") => app.request("POST", "/api/api-keys", { token, json: { name } });

describe("API keys (spec 5)", () => {
  test("a free account cannot create keys (403)", async () => {
    const { token } = await app.register();
    const response = await createKey(token);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toContain("Pro, Max or pay-as-you-go");
  });

  for (const plan of ["payg", "pro", "max"] as const) {
    test(`a ${plan} account creates a key that authenticates, lists it without the secret, and revokes it`, async () => {
      const { token, id } = await app.register();
      await app.setPlan(id, plan);
      const created = await createKey(token, "build server");
      expect(created.status).toBe(201);
      const key = (await created.json()) as { id: string; key: string; name: string; prefix: string };
      expect(key.key).toMatch(/^sk_/);
      expect(key.name).toBe("build server");

      const me = await app.request("GET", "/api/user", { token: key.key });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { id: number }).id).toBe(id);

      const list = (await (await app.request("GET", "/api/api-keys", { token })).json()) as { id: string; prefix: string }[];
      expect(list.map((k) => k.id)).toEqual([key.id]);
      expect(JSON.stringify(list)).not.toContain(key.key);

      expect((await app.request("DELETE", `/api/api-keys/${key.id}`, { token })).status).toBe(200);
      expect((await app.request("GET", "/api/user", { token: key.key })).status).toBe(401);
      expect((await app.request("DELETE", `/api/api-keys/${key.id}`, { token })).status).toBe(404);
    });
  }

  test("a key stops working (403) when its account becomes free, and works again after an upgrade", async () => {
    const { token, id } = await app.register();
    await app.setPlan(id, "pro");
    const { key } = (await (await createKey(token)).json()) as { key: string };
    await app.setPlan(id, "free");
    const refused = await app.request("GET", "/api/user", { token: key });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain("API access");
    // The login token still works on a free plan: only third-party access is closed.
    expect((await app.request("GET", "/api/user", { token })).status).toBe(200);
    await app.setPlan(id, "max");
    expect((await app.request("GET", "/api/user", { token: key })).status).toBe(200);
  });

  test("keys cannot manage keys, and another account's key id is 404", async () => {
    const owner = await app.register();
    await app.setPlan(owner.id, "pro");
    const { key, id: keyId } = (await (await createKey(owner.token)).json()) as { key: string; id: string };
    expect((await createKey(key)).status).toBe(403);
    expect((await app.request("GET", "/api/api-keys", { token: key })).status).toBe(403);
    const stranger = await app.register();
    await app.setPlan(stranger.id, "pro");
    expect((await app.request("DELETE", `/api/api-keys/${keyId}`, { token: stranger.token })).status).toBe(404);
    expect((await app.request("GET", "/api/user", { token: key })).status).toBe(200);
  });

  test("bad input is a 4xx", async () => {
    const { token, id } = await app.register();
    await app.setPlan(id, "pro");
    expect((await app.request("POST", "/api/api-keys", { token, json: { name: "x".repeat(256) } })).status).toBe(422);
    expect((await app.request("POST", "/api/api-keys", { token, json: { name: 42 } })).status).toBe(422);
    expect((await app.request("POST", "/api/api-keys", { token })).status).toBe(201);
  });
});
