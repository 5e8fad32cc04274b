import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../../src/config.ts";
import { openAdapters, type Adapters } from "../../src/adapters.ts";
import { startService, type Service } from "../../src/service.ts";
import { configureLogging } from "../../src/logging/logger.ts";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import type { BillingInterval, PlanKey } from "../../src/accounts/plans.ts";

export type TestApp = {
  config: Config;
  adapters: Adapters;
  service: Service;
  /** Calls the API in process: `request("POST", "/api/login", { json: {...}, token })`. */
  request(
    method: string,
    path: string,
    options?: { json?: unknown; body?: RequestInit["body"]; token?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Where the client reaches the app: PUBLIC_URL's origin (http://localhost:3000 when unset). */
  origin: string;
  /** Fetches a URL the service handed out, exactly as given: in process when it names the app's origin, over the network otherwise. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** Registers a fresh account and returns its token and id. */
  register(overrides?: { name?: string; email?: string; password?: string }): Promise<{ token: string; id: number; email: string; password: string }>;
  /** Changes an account's plan the way the operator CLI does (a command), and waits for the read models. */
  setPlan(userId: number, plan: PlanKey, interval?: BillingInterval): Promise<void>;
  close(): Promise<void>;
};

/**
 * The whole service in this process on embedded adapters in a temp DATA_DIR: the same composition
 * root as `npm start`, reached through `app.handle` without opening a port. `now`: the accounts' clock, for
 * tests of tokens' and sessions' lifetimes that let days pass.
 */
export async function startTestApp(
  env: Record<string, string> = {},
  options: {
    now?: () => Date /** The adapters as the service gets them: behind a fault switch (faulty-ports.ts). */;
    adapters?: (opened: Adapters) => Adapters;
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-app-"));
  // A newcomer's settings: the spec's limits and no PUBLIC_URL (test/support/limits.ts names the opt-ins).
  const config = loadConfig({
    // A line per request would bury the test runner's report; warnings and errors still show.
    LOG_LEVEL: "warn",
    ...env,
    DATA_DIR: dataDir,
  });
  configureLogging({ level: config.logLevel });
  const opened = await openAdapters(config);
  const adapters = options.adapters?.(opened) ?? opened;
  const service = await startService(config, adapters, { now: options.now });
  const app = service.app!;
  let counter = 0;

  const request: TestApp["request"] = (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    }
    return app.handle(new Request(`${origin}${path}`, { method, headers, body }));
  };
  // The in-process app is reached at the address it names itself by (PUBLIC_URL, or its default): a URL the
  // service hands out for another address is fetched for real, and fails as it would for a client.
  const origin = new URL(config.publicUrl).origin;
  const fetchUrl: TestApp["fetch"] = (url, init = {}) =>
    new URL(url).origin === origin ? app.handle(new Request(url, init)) : fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(5000) });

  return {
    config,
    adapters,
    service,
    request,
    origin,
    fetch: fetchUrl,
    async register(overrides = {}) {
      counter++;
      const email = overrides.email ?? `user${counter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const password = overrides.password ?? "correct horse battery";
      const response = await request("POST", "/api/register", {
        json: { name: overrides.name ?? `User ${counter}`, email, password, password_confirmation: password },
      });
      if (response.status !== 201) throw new Error(`register failed: ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { token: string; user: { id: number } };
      return { token: body.token, id: body.user.id, email, password };
    },
    async setPlan(userId, plan, interval = plan === "free" || plan === "payg" ? "none" : "month") {
      const result = await handle(
        adapters.eventStore,
        userStream(userId),
        userDecider,
        (state) => userDecider.decide({ type: "ChangePlan", plan, interval, source: "operator", reference: null, now: new Date().toISOString() }, state),
        {
          metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "test" },
        },
      );
      if (result.position !== null) await service.waitForProjections(result.position);
    },
    async close() {
      await service.stop();
      await adapters.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
