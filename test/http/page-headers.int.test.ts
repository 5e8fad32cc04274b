/**
 * Every HTML answer of the service carries a Content-Security-Policy, `X-Content-Type-Options: nosniff`, a
 * Referrer-Policy and no framing (`frame-ancestors 'none'` or `X-Frame-Options: DENY`), and every answer nosniff:
 * set in one place (src/http/page-headers.ts), so a page added later gets them too. The known pages are checked
 * with real content (the web app, the API reference, the share page in its three forms, the sandbox checkout's two
 * pages), then every GET route of the app is asked for HTML. Avatars are served sandboxed, the SVG as an attachment,
 * and an SVG upload is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { freePort } from "../support/service-process.ts";
import { createTask, waitForStatus, type User } from "../support/tasks.ts";

const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
const webhookSecret = "whsec_page_headers";
let app: TestApp;
let server: AnyElysia;
let user: User;
let taskId = 0;
beforeAll(async () => {
  // Listening too: the sandbox checkout delivers its webhook over real HTTP to PUBLIC_URL.
  const port = freePort();
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", PAYMENT_WEBHOOK_SECRET: webhookSecret, PUBLIC_URL: `http://127.0.0.1:${port}` });
  server = app.service.app!.listen({ hostname: "127.0.0.1", port });
  user = await app.register();
  taskId = await createTask(app, user, { name: "Shared", segments: [{ start: 0, end: 1000, text: "hello" }] });
  await waitForStatus(app, user, taskId, "finished");
  expect((await app.request("GET", `/api/tasks/${taskId}/share-url`, { token: user.token })).status).toBe(200);
});
afterAll(async () => {
  await server.stop();
  await app.close();
});

/** Why `response`, an HTML page, lacks a header it must have; null when it has them all. */
function missingPageHeaders(response: Response): string | null {
  const headers = response.headers;
  const policy = headers.get("content-security-policy") ?? "";
  if (policy === "") return "no Content-Security-Policy";
  if (headers.get("x-content-type-options") !== "nosniff") return "no X-Content-Type-Options: nosniff";
  if (!headers.get("referrer-policy")) return "no Referrer-Policy";
  if (!/frame-ancestors 'none'/.test(policy) && headers.get("x-frame-options") !== "DENY") return "framing allowed";
  return null;
}

async function expectPage(method: string, path: string, headers: Record<string, string> = browser): Promise<Response> {
  const response = await app.request(method, path, { headers });
  const type = response.headers.get("content-type") ?? "";
  expect({ path, status: response.status, html: type.startsWith("text/html") }).toEqual({ path, status: 200, html: true });
  expect({ path, missing: missingPageHeaders(response) }).toEqual({ path, missing: null });
  return response;
}

describe("headers on every HTML page", () => {
  test("the web app's page, at any path it draws", async () => {
    for (const path of ["/", "/tasks/1", "/account", "/login"]) await expectPage("GET", path);
  });

  test("the API reference at /swagger: its own policy, its script from this origin", async () => {
    const response = await expectPage("GET", "/swagger");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("content-security-policy")).not.toContain("'unsafe-inline' 'unsafe-eval'");
    expect(await response.text()).not.toContain("https://");
  });

  test("the share page: the app's for a browser, the script-free one for others, and the one of a link that shows nothing", async () => {
    await expectPage("GET", `/share/tasks/${taskId}`);
    const plain = await expectPage("GET", `/share/tasks/${taskId}`, { accept: "*/*" });
    expect(plain.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(await plain.text()).toContain("hello");
    const missing = await app.request("GET", "/share/tasks/999999", { headers: browser });
    expect(missing.status).toBe(404);
    expect({ missing: missingPageHeaders(missing) }).toEqual({ missing: null });
  });

  test("the sandbox checkout: its payment page and its completion page", async () => {
    const options = (await (await app.request("GET", "/api/checkout/month", { token: user.token })).json()) as { checkout_url: string };
    const path = new URL(options.checkout_url).pathname;
    const page = await expectPage("GET", path);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await page.text()).toContain("Sandbox checkout");
    const done = await expectPage("POST", `${path}/complete`);
    expect(await done.text()).toContain("Payment complete");
  });

  test("every GET route asked for HTML: whatever answers HTML has the headers, and every answer nosniff", async () => {
    const routes = (app.service.app!.routes as { method: string; path: string }[]).filter((r) => r.method === "GET");
    expect(routes.length).toBeGreaterThan(30);
    const pages: string[] = [];
    for (const route of routes) {
      const path = route.path.replace(/:[^/]+/g, String(taskId)).replace("*", "anything");
      for (const token of [undefined, user.token]) {
        const response = await app.request("GET", path, { headers: browser, token });
        const type = response.headers.get("content-type") ?? "";
        expect({ path, nosniff: response.headers.get("x-content-type-options") }).toEqual({ path, nosniff: "nosniff" });
        if (type.startsWith("text/html")) {
          pages.push(route.path);
          expect({ path, missing: missingPageHeaders(response) }).toEqual({ path, missing: null });
        }
        await response.body?.cancel();
      }
    }
    // The app's catch-all, the reference and the share page are among them.
    expect(pages).toEqual(expect.arrayContaining(["/", "/*", "/swagger", "/share/tasks/:id"]));
  });

  test("error answers carry nosniff too", async () => {
    for (const [method, path] of [
      ["GET", "/api/nothing"],
      ["GET", "/api/tasks"],
      ["POST", "/api/tasks"],
    ]) {
      const response = await app.request(method!, path!);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });
});

describe("avatars", () => {
  // A valid 1×1 PNG.
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>';
  const upload = (token: string, bytes: Uint8Array | string, name: string, type: string) => {
    const form = new FormData();
    form.append("avatar", new Blob([bytes], { type }), name);
    return app.request("PUT", "/api/user", { token, body: form });
  };

  test("the generated initials (SVG): sandboxed, nosniff, an attachment", async () => {
    const response = await app.request("GET", `/avatars/${user.id}/default.svg`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(response.headers.get("content-disposition")).toStartWith("attachment");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("an SVG upload is refused, naming the field, whatever name and type it claims", async () => {
    const other = await app.register();
    for (const [name, type] of [
      ["me.svg", "image/svg+xml"],
      ["me.png", "image/png"],
    ] as const) {
      const response = await upload(other.token, svg, name, type);
      expect(response.status).toBe(422);
      expect(Object.keys(((await response.json()) as { errors: Record<string, string[]> }).errors)).toEqual(["avatar"]);
    }
  });

  test("an uploaded image is served sandboxed and nosniff; a stored file that is no raster image goes as an attachment", async () => {
    const other = await app.register();
    const response = await upload(other.token, png, "me.png", "image/png");
    expect(response.status).toBe(200);
    const { avatar } = (await response.json()) as { avatar: string };
    const image = await app.request("GET", new URL(avatar).pathname);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(image.headers.get("x-content-type-options")).toBe("nosniff");
    expect(image.headers.get("content-disposition")).toBeNull();
    // Read to the end: a body left unread holds its file open until garbage collection, which Bun reports as an error.
    expect((await image.arrayBuffer()).byteLength).toBe(png.byteLength);
    // An SVG in the store under a raster name (written before uploads were checked by their bytes).
    const key = `avatars/${other.id}/${crypto.randomUUID()}.png`;
    await app.adapters.blobs.put(key, new TextEncoder().encode(svg), { contentType: "image/svg+xml" });
    const stored = await app.request("GET", `/${key}`);
    expect(stored.status).toBe(200);
    expect(stored.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(stored.headers.get("content-disposition")).toStartWith("attachment");
    expect(stored.headers.get("x-content-type-options")).toBe("nosniff");
    await stored.arrayBuffer();
    // And one under an SVG name is not served at all.
    await app.adapters.blobs.put(`avatars/${other.id}/${crypto.randomUUID()}.svg`, new TextEncoder().encode(svg), { contentType: "image/svg+xml" });
    expect((await app.request("GET", `/avatars/${other.id}/${crypto.randomUUID()}.svg`)).status).toBe(404);
  });
});
