/**
 * The share link (`/share/tasks/{id}`) answers each client in its language: a browser (`Accept: text/html`) gets the
 * web app's page with the transcript drawn in it by the server (title, segments with times and speakers, summary,
 * Open Graph and Twitter meta), which link previews and readers without script read, and which the app then takes
 * over; `Accept: application/json` gets the JSON; a client that asks for neither (curl, a crawler) a script-free page
 * of the same. Everything from the task is escaped. A link that shows nothing is 404 in all three, telling nothing.
 * A 100,000-segment transcript's page is sent in pieces as made, gzipped: its figures are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, segment, waitForStatus, type User } from "../support/tasks.ts";

const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
});
afterAll(() => app.close());

const page = (id: number, headers: Record<string, string> = {}) => app.request("GET", `/share/tasks/${id}`, { headers });

async function share(user: User, id: number): Promise<void> {
  await waitForStatus(app, user, id, "finished");
  expect((await app.request("GET", `/api/tasks/${id}/share-url`, { token: user.token })).status).toBe(200);
}

/** The summary, written by the embedded extractive summariser from the segments. */
async function summarise(user: User, id: number): Promise<string> {
  const response = await app.request("GET", `/api/tasks/${id}/refresh-summary`, { token: user.token });
  expect(response.status).toBe(200);
  const task = await json<{ summary: string | null }>(await app.request("GET", `/api/tasks/${id}`, { token: user.token }));
  expect(task.summary).toBeString();
  return task.summary!;
}

/** A `<meta>`'s content as a browser reads it (the page escapes `&`, `<`, `>`, `"` and `'`). */
function meta(html: string, key: string): string | null {
  const found = new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)">`).exec(html)?.[1];
  return found === undefined
    ? null
    : found.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[name]!);
}

const sentences = [
  "Good morning, everyone, and welcome to the weekly stand-up of the platform team.",
  "The release went out on Tuesday without a hitch, and the dashboards stayed green all week.",
  "Next we will look at the backlog and decide what goes into the next sprint.",
];

describe("/share/tasks/{id} by Accept", () => {
  let user: User;
  let id: number;
  let summary: string;
  beforeAll(async () => {
    user = await app.register();
    id = await createTask(app, user, {
      name: "Stand-up",
      segments: [
        segment(0, 1200, sentences[0]!, { speaker: "Ann" }),
        segment(65_000, 70_000, sentences[1]!, { speaker: "Bo" }),
        segment(3_723_000, 3_725_000, sentences[2]!),
      ],
    });
    await share(user, id);
    summary = await summarise(user, id);
  });

  test("a browser gets the app's page (its bundles, its CSP) with the transcript, its title and its meta drawn in", async () => {
    const response = await page(id, browser);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("etag")).toBeNull();
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe-inline");
    const html = await response.text();
    expect(html).toContain('<div id="app"></div>');
    expect(html).toMatch(/<script type="module" src="\/assets\/main-[a-z0-9]{8}\.js"><\/script>/);
    expect(html).toContain("<title>Stand-up · Scribe</title>");
    expect(html).toContain("<h1>Stand-up</h1>");
    expect(meta(html, "og:title")).toBe("Stand-up");
    expect(meta(html, "og:type")).toBe("article");
    expect(meta(html, "twitter:card")).toBe("summary");
    // The summary, cut for a preview at a word.
    const description = meta(html, "og:description")!;
    expect(description.length).toBeLessThanOrEqual(200);
    expect(summary.replace(/\s+/g, " ").startsWith(description.replace(/…$/, ""))).toBe(true);
    expect(meta(html, "description")).toBe(description);
    // The segments with their times and speakers, as the app's list shows them; the summary.
    expect(html).toContain(
      `<span class="segment-time">0:00</span><span class="segment-speaker">Ann</span></span><span class="segment-text">${sentences[0]}</span>`,
    );
    expect(html).toContain(`<span class="segment-time">1:05</span><span class="segment-speaker">Bo</span>`);
    expect(html).toContain(`<span class="segment-time">1:02:03</span></span><span class="segment-text">${sentences[2]}</span>`);
    expect(html).toContain('<h2 id="shared-summary">Summary</h2>');
    expect(html).toContain(`data-share-task="${id}"`);
    // No script but the app's bundle, nothing inline: the page's CSP would refuse it anyway.
    expect(html.match(/<script/g)?.length).toBe(2);
    expect(html).not.toMatch(/\son\w+=/);
  });

  test("fetched with no Accept at all (curl, a crawler), the script-free page says the same", async () => {
    const response = await page(id);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'");
    const html = await response.text();
    expect(html).not.toContain("<script");
    expect(html).toContain("<title>Stand-up · Scribe</title>");
    expect(html).toContain(sentences[1]!);
    expect(meta(html, "og:title")).toBe("Stand-up");
    expect(meta(html, "og:description")).toBe(meta(await (await page(id, browser)).text(), "og:description"));
  });

  test("gzip when the client takes it", async () => {
    const response = await page(id, { ...browser, "accept-encoding": "gzip, deflate, br" });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    const html = new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await response.arrayBuffer())));
    expect(html).toContain(sentences[0]!);
  });

  test("JSON for Accept: application/json, as before", async () => {
    const asJson = await page(id, { accept: "application/json" });
    expect(asJson.headers.get("content-type")).toContain("application/json");
    const body = await json<{ name: string; segments: unknown[]; summary: string }>(asJson);
    expect(body.name).toBe("Stand-up");
    expect(body.segments).toHaveLength(3);
    expect(body.summary).toBe(summary);
  });

  test("a transcript with no segments yet says so", async () => {
    const empty = await createTask(app, user, { name: "Empty", segments: [] });
    await share(user, empty);
    const html = await (await page(empty, browser)).text();
    expect(html).toContain("No transcript yet.");
    expect(meta(html, "og:description")).toBe("A transcript shared from Scribe.");
  });
});

describe("hostile names and text", () => {
  test("are escaped in the title, the meta, the headings and the segments; bidirectional controls are dropped", async () => {
    const user = await app.register();
    const name = `</title><script>alert("name")</script>"' & <b>bold</b>`;
    const speaker = `"><img src=x onerror=alert(1)>`;
    const text = `</span></li><script>alert('text')</script> \u202egnp.exe\u202c & "quoted" \u2066isolated\u2069`;
    const id = await createTask(app, user, { name, segments: [segment(0, 1000, text, { speaker }), segment(1000, 2000, "Plain words after it.")] });
    await share(user, id);
    await summarise(user, id);
    for (const headers of [browser, {}]) {
      const html = await (await page(id, headers)).text();
      expect(html).not.toContain("<script>alert");
      expect(html).not.toContain("<img");
      expect(html).not.toContain("<b>bold");
      expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(html).toContain(
        "<title>&lt;/title&gt;&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&quot;&#39; &amp; &lt;b&gt;bold&lt;/b&gt; · Scribe</title>",
      );
      expect(html).toContain("<h1>&lt;/title&gt;&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;&quot;&#39; &amp; &lt;b&gt;bold&lt;/b&gt;</h1>");
      expect(html).toContain('<span class="segment-speaker">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</span>');
      expect(html).toContain("&lt;/span&gt;&lt;/li&gt;&lt;script&gt;alert(&#39;text&#39;)&lt;/script&gt; gnp.exe &amp; &quot;quoted&quot; isolated");
      // Each meta is one well-formed element whose content reads back as the text.
      expect(meta(html, "og:title")).toBe(name);
      expect(meta(html, "twitter:title")).toBe(name);
      expect(meta(html, "og:description")).toContain("isolated");
      expect(html.match(/<meta /g)?.length).toBe(headers === browser ? 11 : 10);
    }
  });
});

describe("a link that shows nothing", () => {
  test("unshared, unshared again or unknown: 404 for everyone, the browser's the app's page, alike for all and naming nothing", async () => {
    const user = await app.register();
    const secret = await createTask(app, user, { name: "Private plans", segments: [segment(0, 1000, "The secret is out.")] });
    await waitForStatus(app, user, secret, "finished");
    const once = await createTask(app, user, { name: "Shared once", segments: [segment(0, 1000, "No longer public.")] });
    await share(user, once);
    expect((await app.request("DELETE", `/api/tasks/${once}/share-url`, { token: user.token })).status).toBe(200);
    const unknown = 987_654_321;

    const pages: string[] = [];
    for (const id of [secret, once, unknown]) {
      for (const headers of [browser, { accept: "application/json" }, {}]) expect((await page(id, headers)).status).toBe(404);
      const missing = await page(id, { ...browser, "if-none-match": "*" });
      expect(missing.status).toBe(404);
      expect(missing.headers.get("etag")).toBeNull();
      const html = await missing.text();
      expect(html).toContain('<div id="app"></div>');
      expect(html).not.toContain("prerendered");
      expect(html).not.toMatch(/Private plans|secret is out|Shared once|No longer public/);
      pages.push(html);
    }
    expect(new Set(pages).size).toBe(1);
  });
});

describe("a long transcript", () => {
  test("100,000 segments: the page is sent in pieces as made, gzipped, in well under a second's work", async () => {
    const user = await app.register();
    const count = 100_000;
    const segments = Array.from({ length: count }, (_, i) =>
      segment(i * 3000, i * 3000 + 2900, `Segment ${i} of the long meeting, in which someone says a sentence of ordinary length.`, { speaker: `S${i % 4}` }),
    );
    const id = await createTask(app, user, { name: "All-day workshop", segments });
    await share(user, id);

    const before = process.memoryUsage().rss;
    const started = performance.now();
    const response = await page(id, { ...browser, "accept-encoding": "gzip" });
    const reader = response.body!.getReader();
    let firstPieceMs = 0;
    let compressed = 0;
    let pieces = 0;
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (pieces++ === 0) firstPieceMs = performance.now() - started;
      compressed += value.byteLength;
      chunks.push(value);
    }
    const totalMs = performance.now() - started;
    const grownMb = (process.memoryUsage().rss - before) / 2 ** 20;
    const html = new TextDecoder().decode(Bun.gunzipSync(Buffer.concat(chunks)));
    console.log(
      `share page of ${count} segments: first piece after ${firstPieceMs.toFixed(0)} ms, all of it after ${totalMs.toFixed(0)} ms; ` +
        `${(html.length / 2 ** 20).toFixed(1)} MiB of HTML as ${(compressed / 2 ** 20).toFixed(2)} MiB gzipped in ${pieces} pieces; RSS grew ${grownMb.toFixed(0)} MiB`,
    );
    expect(html.match(/<li class="segment">/g)?.length).toBe(count);
    expect(html).toContain(`Segment ${count - 1} of the long meeting`);
    expect(html.endsWith("</div></body></html>\n")).toBe(true);
    expect(pieces).toBeGreaterThan(10);
    // Generous bounds for a loaded two-core machine; the figures printed above are what it took.
    expect(totalMs).toBeLessThan(5000);
    expect(grownMb).toBeLessThan(300);
  }, 120_000);
});
