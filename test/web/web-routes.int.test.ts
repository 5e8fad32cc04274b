/**
 * How the api role serves the web app, in process: the HTML page for browser navigations outside the API's
 * paths (with its Content-Security-Policy), the API's JSON 404s unchanged everywhere else, the bundles
 * content-hashed, cached for good and precompressed, the start of "Sign in with idp", and none of it in the
 * OpenAPI document.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import { createHttpApp } from "../../src/http/app.ts";
import { webApp, type WebBuild } from "../../src/web/index.ts";
import { apiReferenceScriptPath } from "../../src/http/api-reference.ts";

const html = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
let app: AnyElysia;
let build: WebBuild;
const starts: { state: string; hint?: string }[] = [];

beforeAll(async () => {
  const web = webApp({
    idp: async (state, hint) => {
      starts.push({ state, hint });
      return `https://idp.example/authorize?state=${state}`;
    },
  });
  build = await web.ready;
  app = createHttpApp([web.routes]);
});

const get = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }));

describe("the app's page", () => {
  test.each(["/", "/tasks/12", "/account", "/login", "/auth/callback?code=x&state=y"])("a browser navigation to %s gets the HTML page", async (path) => {
    const response = await get(path, html);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe-inline");
    const page = await response.text();
    expect(page).toContain(`<script type="module" src="/assets/${build.entry.script}"></script>`);
    expect(page).toContain('<script type="application/json" id="scribe-config">{"idp":true}</script>');
    // Nothing the page names is elsewhere.
    expect(page.match(/(src|href)="([^"]+)"/g)?.every((attr) => /="(\/|data:)/.test(attr))).toBe(true);
  });

  test.each(["/", "/tasks/12"])("a client that does not ask for HTML still gets the API's JSON 404 at %s", async (path) => {
    const response = await get(path, { accept: "application/json" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "Not found." });
  });

  test.each(["/api/nope", "/api", "/swagger/nope", "/storage/x", "/avatars/1/x.png", "/share/tasks/1/x", "/assets/nope.js", "/metricsx"])(
    "the API's path %s answers its JSON 404 even to a browser",
    async (path) => {
      const response = await get(path, html);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: "Not found." });
    },
  );

  test("under /v1 the 404 keeps OpenAI's shape", async () => {
    const response = await get("/v1/nope", html);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("not_found_error");
  });

  test("other methods than GET are not the app's", async () => {
    const response = await app.handle(new Request("http://localhost/tasks/12", { method: "POST", headers: html }));
    expect(response.status).toBe(404);
  });
});

describe("the bundles", () => {
  test("the entry script, its chunks and its stylesheet are named by their content's hash and typed", () => {
    expect(build.entry.script).toMatch(/^main-[a-z0-9]{8}\.js$/);
    expect(build.entry.styles).toEqual([expect.stringMatching(/^main-[a-z0-9]{8}\.css$/)]);
    for (const [name, asset] of build.assets) expect(asset.type).toBe(name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
  });

  test("are cached for good and sent in the best encoding the client takes", async () => {
    const path = `/assets/${build.entry.script}`;
    const asset = build.assets.get(build.entry.script)!;
    const brotli = await get(path, { "accept-encoding": "gzip, deflate, br" });
    expect(brotli.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(brotli.headers.get("content-encoding")).toBe("br");
    expect(brotli.headers.get("vary")).toBe("Accept-Encoding");
    expect(Buffer.from(await brotli.arrayBuffer())).toEqual(Buffer.from(asset.br));
    const gzip = await get(path, { "accept-encoding": "gzip, br;q=0" });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(Buffer.from(Bun.gunzipSync(new Uint8Array(await gzip.arrayBuffer())))).toEqual(Buffer.from(asset.body));
    const plain = await get(path, { "accept-encoding": "identity" });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer())).toEqual(Buffer.from(asset.body));
    const again = await get(path, { "if-none-match": brotli.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  test("compressed, the first load's JavaScript and CSS stay far under the app's 150 KiB budget", () => {
    const first = [build.entry.script, ...build.entry.styles].map((name) => build.assets.get(name)!.br.length);
    expect(first.reduce((a, b) => a + b, 0)).toBeLessThan(40 * 1024);
  });
});

describe("Sign in with idp", () => {
  test("GET /auth/idp sends the browser to the provider with the app's state", async () => {
    const state = "A".repeat(32);
    const response = await get(`/auth/idp?state=${state}&login_hint=ada`);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`https://idp.example/authorize?state=${state}`);
    expect(starts.at(-1)).toEqual({ state, hint: "ada" });
  });

  test("a state that is not one of the app's is refused", async () => {
    expect((await get("/auth/idp?state=short")).status).toBe(422);
    expect((await get("/auth/idp")).status).toBe(422);
  });

  test("without an identity provider there is nothing to start, and the page does not offer it", async () => {
    const web = webApp({ idp: null });
    const bare = createHttpApp([web.routes]);
    expect((await bare.handle(new Request(`http://localhost/auth/idp?state=${"A".repeat(32)}`))).status).toBe(404);
    expect(await (await bare.handle(new Request("http://localhost/login", { headers: html }))).text()).toContain('{"idp":false}');
  });
});

test("/swagger loads the API reference's script from this server, pinned, cached for good", async () => {
  const page = await (await get("/swagger")).text();
  expect(page).toContain(`<script src="${apiReferenceScriptPath}"`);
  expect(page).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/);
  expect(apiReferenceScriptPath).toMatch(/^\/swagger\/assets\/api-reference-\d+\.\d+\.\d+\.js$/);
  const script = await get(apiReferenceScriptPath, { "accept-encoding": "gzip" });
  expect(script.status).toBe(200);
  expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
}, 30_000);

test("no page of the app is in the OpenAPI document", async () => {
  const document = (await (await get("/swagger/json")).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(document.paths).filter((path) => !path.startsWith("/api/") && path !== "/api")).toEqual([]);
});

describe("the cluster profile's uploads", () => {
  test("the page's policy lets the browser PUT parts to S3's origin, and nowhere else besides this one", async () => {
    const web = webApp({ idp: null, storageOrigins: ["https://s3.example.com:9000"] });
    await web.ready;
    const page = await web.page(new Request("http://localhost/new", { headers: html }));
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("connect-src 'self' https://s3.example.com:9000;");
    expect(policy).toContain("default-src 'self';");
    expect(policy).toContain("script-src 'self';");
  });

  test("exactly: S3's origin for the parts' PUTs, nothing else added; a page the server draws (the share page) carries the same", async () => {
    const web = webApp({ idp: null, storageOrigins: ["https://bucket.s3.example.com"] });
    await web.ready;
    const expected =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self' https://bucket.s3.example.com; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    const shell = await web.page(new Request("http://localhost/new", { headers: html }));
    expect(shell.headers.get("content-security-policy")).toBe(expected);
    const drawn = await web.page(new Request("http://localhost/share/tasks/1", { headers: html }), {
      title: "T",
      meta: [],
      body: ["<p>drawn</p>"],
    });
    expect(drawn.headers.get("content-security-policy")).toBe(expected);
    expect(drawn.headers.get("x-frame-options")).toBe("DENY");
    expect(await drawn.text()).toContain('<div id="app"></div><div id="prerendered" class="prerendered">\n<p>drawn</p>');
  });

  test("without S3 (the embedded profile) uploads stay on this origin", async () => {
    const response = await get("/new", html);
    expect(response.headers.get("content-security-policy")).toContain("connect-src 'self';");
  });
});
