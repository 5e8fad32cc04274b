import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { loadState } from "../../src/core/state-cache.ts";
import { claimDecider, emailClaimStream } from "../../src/accounts/claims.ts";
import { emailClaimsWorker } from "../../src/accounts/email-claims-worker.ts";
import { deliverTo } from "../../src/core/worker.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

// A valid 1×1 PNG.
const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

function form(fields: Record<string, string | Blob>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Blob) data.append(name, value, name === "avatar" ? "picture.png" : undefined);
    else data.append(name, value);
  }
  return data;
}

describe("PUT /api/user", () => {
  test("changes name and email (JSON) and returns id, name, email, avatar", async () => {
    const { token, id, password } = await app.register();
    const response = await app.request("PUT", "/api/user", { token, json: { name: "New Name", email: "renamed@example.com" } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ id, name: "New Name", email: "renamed@example.com", avatar: expect.stringContaining(`/avatars/${id}/`) });
    // The new email logs in; the old one is free for someone else.
    expect((await app.request("POST", "/api/login", { json: { email: "renamed@example.com", password } })).status).toBe(200);
  });

  test("an email taken by another account is 422 and nothing changes", async () => {
    const taken = await app.register();
    const { token, email } = await app.register();
    const response = await app.request("PUT", "/api/user", { token, json: { name: "Should Not Stick", email: taken.email.toUpperCase() } });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: Record<string, string[]> }).errors.email).toEqual(["The email has already been taken."]);
    const me = (await (await app.request("GET", "/api/user", { token })).json()) as { name: string; email: string };
    expect(me.email).toBe(email);
    expect(me.name).not.toBe("Should Not Stick");
  });

  test("a released email can be registered again", async () => {
    const { token, email } = await app.register();
    await app.request("PUT", "/api/user", { token, json: { email: `moved-${email}` } });
    expect(
      (await app.request("POST", "/api/register", { json: { name: "Next", email, password: "password123", password_confirmation: "password123" } })).status,
    ).toBe(201);
  });

  test("the email-claims worker releases only an address the account no longer uses, so a redelivery after taking it back changes nothing", async () => {
    const { token, id, email } = await app.register();
    const moved = `away-${email}`;
    expect((await app.request("PUT", "/api/user", { token, json: { email: moved } })).status).toBe(200);
    const claimOwner = async (address: string) => (await loadState(app.adapters.eventStore, emailClaimStream(address), claimDecider)).state.owner;
    expect(await claimOwner(email)).toBeNull();
    expect(await claimOwner(moved)).toBe(id);
    // Back to the first address, then the first change's event arrives again.
    expect((await app.request("PUT", "/api/user", { token, json: { email } })).status).toBe(200);
    expect(await claimOwner(email)).toBe(id);
    const firstChange = (await app.adapters.eventStore.readStream(`user-${id}`)).find((e) => e.type === "ProfileUpdated")!;
    await deliverTo(emailClaimsWorker(app.adapters.eventStore), firstChange, undefined as never);
    expect(await claimOwner(email)).toBe(id);
    const someoneElse = { name: "Other", email, password: "password123", password_confirmation: "password123" };
    expect((await app.request("POST", "/api/register", { json: someoneElse })).status).toBe(422);
  });

  test("an avatar image is stored and served back at the returned URL", async () => {
    const { token } = await app.register();
    const response = await app.request("PUT", "/api/user", { token, body: form({ avatar: new Blob([png], { type: "image/png" }), name: "Pic Owner" }) });
    expect(response.status).toBe(200);
    const { avatar, name } = (await response.json()) as { avatar: string; name: string };
    expect(name).toBe("Pic Owner");
    const image = await app.request("GET", new URL(avatar).pathname);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(png);
    const me = (await (await app.request("GET", "/api/user", { token })).json()) as { avatar: string };
    expect(me.avatar).toBe(avatar);
  });

  test("a non-image, an image over 5 MB, and an empty file are 422 on avatar", async () => {
    const { token } = await app.register();
    const cases = [
      new Blob(["#!/bin/sh\necho hi"], { type: "image/png" }),
      new Blob([png, new Uint8Array(5 * 1024 * 1024)], { type: "image/png" }),
      new Blob([], { type: "image/png" }),
    ];
    for (const avatar of cases) {
      const response = await app.request("PUT", "/api/user", { token, body: form({ avatar }) });
      expect(response.status).toBe(422);
      expect((await response.json()) as object).toHaveProperty("errors.avatar");
    }
  });

  test("broken multipart and wrong types are 4xx, never 500", async () => {
    const { token } = await app.register();
    const broken = await app.request("PUT", "/api/user", {
      token,
      body: '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated',
      headers: { "content-type": "multipart/form-data; boundary=xyz" },
    });
    expect(broken.status).toBeGreaterThanOrEqual(400);
    expect(broken.status).toBeLessThan(500);
    expect((await app.request("PUT", "/api/user", { token, json: { name: 12 } })).status).toBe(422);
    expect((await app.request("PUT", "/api/user", { token, json: { email: "nope" } })).status).toBe(422);
    expect((await app.request("PUT", "/api/user", { token, json: { name: "" } })).status).toBe(422);
  });
});
