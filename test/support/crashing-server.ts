/**
 * A server built as the service's is (createHttpApp, listening with main.ts's serverOptions, a request log), with
 * routes that fail as a bug would: for test/http/last-resort.e2e.test.ts, which starts it as a process without
 * NODE_ENV, the way `bun src/main.ts` runs for a newcomer. PORT names its port.
 */
import { Elysia } from "elysia";
import { createHttpApp } from "../../src/http/app.ts";
import { serverOptions } from "../../src/http/server-options.ts";
import { requestLog } from "../../src/http/request-log.ts";
import { configureLogging } from "../../src/logging/logger.ts";

/** A thrown value whose every use throws, the error handler's included. */
const unreadable = new Proxy(
  {},
  {
    get: () => {
      throw new Error("read");
    },
    getPrototypeOf: () => {
      throw new Error("instanceof");
    },
  },
);

configureLogging({ level: "info", pretty: false });
const failing = new Elysia()
  .get("/api/crash", () => {
    throw new Error("a bug in a route");
  })
  .get("/api/crash-the-error-handler", () => {
    throw unreadable;
  });
const app = createHttpApp([failing], { observers: [requestLog()] });
app.listen({ ...serverOptions(Number(process.env.PORT)), hostname: "127.0.0.1" });
