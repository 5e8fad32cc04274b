import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page, type Request } from "playwright-core";
import { startServiceProcess, type RunningService } from "./service-process.ts";
import { until } from "./eventually.ts";

/**
 * Browser tests drive Debian's Chromium (`apt-get install chromium`, which `npm test`'s setup installs) through
 * playwright-core: no browser is downloaded. CHROMIUM_PATH names another build.
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(chromiumPath);

/**
 * Where the browser tests save their screenshots: the README's pictures (test/web/screenshots) with
 * UPDATE_SCREENSHOTS=1, a temporary folder otherwise, so that a test run leaves the checkout as it was.
 */
export const screenshotsDir =
  process.env.UPDATE_SCREENSHOTS === "1" ? join(import.meta.dir, "../web/screenshots") : mkdtempSync(join(tmpdir(), "scribe-screenshots-"));

/**
 * Headless, and quiet on a machine without a network: without the background-networking, component-update and
 * sync switches Chromium keeps calling Google's services, which floods a closed network with refused
 * connections. No sandbox: the tests run as root in a container, where Chromium's sandbox cannot start.
 */
export const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export type BrowserHarness = {
  service: RunningService;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The service's origin, where the browser opens it (127.0.0.1): every request of the app must go there. */
  origin: string;
  /** What the service names itself in links that leave the app (share links): PUBLIC_URL, by default http://localhost:PORT. */
  publicUrl: string;
  /** Every http(s)/ws(s) request the browser made elsewhere since the last `checkpoint()`. */
  offOrigin: string[];
  /** Console errors and uncaught exceptions since the last `checkpoint()`. */
  errors: string[];
  /** Forgets what was recorded so far: each test checks what it caused. */
  checkpoint(): void;
  /**
   * Resolves once the page has had no request of its own open for `quietMs`: what it asked for when it opened has
   * all been answered. Playwright's "networkidle" does not serve here, being about document loads, not a client-side
   * page's requests. A page that holds a stream open (a task's events) never settles.
   */
  requestsSettled(quietMs?: number): Promise<void>;
  /**
   * Fails unless the browser stayed on the origin (but for `allowedOrigins`) and logged no error since the last
   * checkpoint. The API's own 4xx answers (a 422 of a form, the 401 that ends a session) are the app working, so
   * Chromium's "Failed to load resource ... status of 4xx" lines are not errors here; a 5xx is.
   */
  expectClean(allowedOrigins?: string[]): void;
  close(): Promise<void>;
};

const apiRefusal = /^Failed to load resource: the server responded with a status of 4\d\d/;

/**
 * Starts the real service (`bun src/main.ts`) with a newcomer's settings, and one Chromium with a fresh profile and
 * one page, opened at http://127.0.0.1:PORT while the service, with no PUBLIC_URL, names itself
 * http://localhost:PORT: a person's first visit. A test that needs more says so in `env` (test/support/limits.ts).
 * One per test file: Chromium takes about a second to start.
 */
export async function startBrowserHarness(
  options: {
    env?: (url: string) => Record<string, string>;
    port?: number;
    /** Switches for Chromium besides `chromiumFlags` (a fake microphone: `--use-fake-device-for-media-stream`…). */
    chromiumArgs?: string[];
  } = {},
): Promise<BrowserHarness> {
  let publicUrl = "";
  const service = await startServiceProcess(
    (url) => {
      const env = { ...options.env?.(url) };
      publicUrl = env.PUBLIC_URL ?? `http://localhost:${new URL(url).port}`;
      return env;
    },
    undefined,
    options.port,
  );
  let browser: Browser;
  try {
    // A fresh profile each time: playwright's launch makes a temporary user-data-dir and removes it on close.
    browser = await chromium.launch({ executablePath: chromiumPath, args: [...chromiumFlags, ...(options.chromiumArgs ?? [])], timeout: 30_000 });
  } catch (error) {
    await service.stop();
    throw error;
  }
  const origin = new URL(service.url).origin;
  const context = await browser.newContext({ baseURL: service.url });
  const page = await context.newPage();
  // Generous: the suite shares two cores with the service under test, its workers and Chromium.
  page.setDefaultTimeout(20_000);
  const offOrigin: string[] = [];
  const errors: string[] = [];
  context.on("request", (request) => {
    const url = new URL(request.url());
    if (/^(http|ws)s?:$/.test(url.protocol) && url.origin !== origin) offOrigin.push(request.url());
  });
  page.on("console", (message) => {
    if (message.type() === "error" && !apiRefusal.test(message.text())) errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  const open = new Set<Request>();
  page.on("request", (request) => open.add(request));
  page.on("requestfinished", (request) => open.delete(request));
  page.on("requestfailed", (request) => open.delete(request));
  return {
    service,
    browser,
    context,
    page,
    origin,
    publicUrl,
    offOrigin,
    errors,
    checkpoint() {
      offOrigin.length = 0;
      errors.length = 0;
    },
    async requestsSettled(quietMs = 300) {
      const deadline = Date.now() + 20_000;
      let quietSince = Date.now();
      while (Date.now() - quietSince < quietMs) {
        if (Date.now() > deadline) throw new Error(`requests still open after 20 s: ${[...open].map((r) => r.url()).join(", ")}`);
        await Bun.sleep(25);
        if (open.size > 0) quietSince = Date.now();
      }
    },
    expectClean(allowedOrigins = []) {
      const strays = offOrigin.filter((url) => !allowedOrigins.includes(new URL(url).origin));
      if (strays.length > 0 || errors.length > 0) {
        throw new Error(`the browser left the origin or logged errors:\n${[...strays.map((u) => `request: ${u}`), ...errors].join("\n")}`);
      }
    },
    async close() {
      await browser.close().catch(() => undefined);
      await service.stop();
    },
  };
}

/** Who a browser test signed in as, and how to call the API as that person from the test itself. */
export type BrowserSession = {
  user: { id: number; name: string; email: string };
  password: string;
  /**
   * The page's session cookie and its origin, for `fetch` from the test (or `new UploadClient(url, headers)`): the
   * API sees the app's own session, under its own rate limit. The cookie is HttpOnly, so the page itself cannot read
   * it; the test reads it from the browser context.
   */
  headers: Record<string, string>;
};

/** The headers that make a request from the test count as the page's own: its session cookie and its origin. */
export async function sessionHeaders(page: Page): Promise<Record<string, string>> {
  const origin = new URL(page.url()).origin;
  const cookies = await page.context().cookies(origin);
  const cookie = cookies.find((c) => c.name === "scribe_session");
  if (!cookie) throw new Error(`no session cookie for ${origin}`);
  return { cookie: `${cookie.name}=${cookie.value}`, origin };
}

/** A cookie as playwright's `context.addCookies` takes it. */
export type SessionCookie = { name: string; value: string; url: string; httpOnly: boolean; sameSite: "Strict"; expires: number };

/**
 * Registers an account through the API as the app does (`POST /api/session/register`, from the app's origin) and
 * returns, besides what registerThroughForm returns, its two cookies for `context.addCookies`: a browser context
 * given them is signed in before its first page loads, as a returning person is (benchmarks seed accounts this way).
 */
export async function registerSession(
  serviceUrl: string,
  { name = "Ada Lovelace", email = `web-${crypto.randomUUID()}@example.com`, password = "correct horse battery" } = {},
): Promise<BrowserSession & { cookies: SessionCookie[] }> {
  const origin = new URL(serviceUrl).origin;
  const response = await fetch(`${origin}/api/session/register`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ name, email, password, password_confirmation: password }),
  });
  if (response.status !== 201) throw new Error(`POST /api/session/register: ${response.status} ${await response.text()}`);
  const { user, expires_at } = (await response.json()) as { user: BrowserSession["user"]; expires_at: string };
  const expires = Math.floor(Date.parse(expires_at) / 1000);
  const cookies = response.headers.getSetCookie().map((line): SessionCookie => {
    const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
    const equals = pair.indexOf("=");
    return { name: pair.slice(0, equals), value: pair.slice(equals + 1), url: origin, httpOnly: attributes.includes("HttpOnly"), sameSite: "Strict", expires };
  });
  const session = cookies.find((c) => c.name === "scribe_session");
  if (!session) throw new Error("POST /api/session/register set no session cookie");
  return { user, password, headers: { cookie: `${session.name}=${session.value}`, origin }, cookies };
}

/**
 * Registers a new account through the app's form (fields labelled Name, Email, Password, Confirm password; the
 * "Create account" button), as a person would, waits for the task list and returns who signed in, with the headers
 * that call the API through the page's session.
 */
export async function registerThroughForm(
  page: Page,
  { name = "Ada Lovelace", email = `web-${crypto.randomUUID()}@example.com`, password = "correct horse battery" } = {},
): Promise<BrowserSession> {
  await page.goto("/register");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
  const headers = await sessionHeaders(page);
  const answer = await fetch(new URL("/api/session", page.url()), { headers });
  if (answer.status !== 200) throw new Error(`GET /api/session after registering: ${answer.status} ${await answer.text()}`);
  const { user } = (await answer.json()) as { user: BrowserSession["user"] };
  return { user, password, headers };
}

/**
 * Waits for a browser-side condition, given as a string (the tests' TypeScript has no DOM): polled from here,
 * since waitForFunction's string form is an eval, which the page's CSP refuses.
 */
export function untilInPage(page: Page, condition: string, timeoutMs = 10_000): Promise<unknown> {
  return until(condition, () => page.evaluate(condition), timeoutMs, 25);
}
