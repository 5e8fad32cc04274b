import type { Server } from "bun";
import { ConfigError, loadConfig } from "./config.ts";
import { openAdapters } from "./adapters.ts";
import { startService, type Service } from "./service.ts";
import { serverOptions } from "./http/server-options.ts";
import { configureLogging, logger, writeLogOffThread } from "./logging/logger.ts";
import { settingNames, settingOf } from "./settings-schema.ts";

const log = logger("scribe");

/** The values of the settings the schema marks secret: the logger blanks them wherever they would appear. */
function secretSettingValues(env: Record<string, string | undefined>): string[] {
  return settingNames.filter((name) => settingOf(name).secret).flatMap((name) => env[name]?.trim() || []);
}

/**
 * How long after the signal the requests in flight (an upload, a task's status stream, which may last an hour) may
 * finish; then the server cuts them, to stay within the 10 s a container's stop waits before it kills the process.
 */
const requestsDrainMs = 8000;

/**
 * Stops listening at once, ends the live sessions (their WebSockets would hold the server's stop open for as long as
 * their clients like), then waits for the requests in flight, up to `requestsDrainMs`.
 */
async function stopServing(server: Server<unknown> | null | undefined, service: Service): Promise<void> {
  const startedAt = performance.now();
  const drained = server?.stop() ?? Promise.resolve();
  await service.closeConnections();
  const left = requestsDrainMs - (performance.now() - startedAt);
  const inTime = await Promise.race([drained.then(() => true), Bun.sleep(Math.max(0, left)).then(() => false)]);
  if (inTime || !server) return;
  log.warn({ drainMs: requestsDrainMs }, "requests still in flight when the stop's wait ran out: cut");
  await server.stop(true);
}

/** The composition root: reads configuration once, opens the adapters, starts this process's roles. */
async function main(): Promise<void> {
  const config = loadConfig();
  const secrets = secretSettingValues(process.env);
  configureLogging({ level: config.logLevel, secrets });
  writeLogOffThread();
  const adapters = await openAdapters(config);
  // The secret that signs storage URLs may have just been made under DATA_DIR.
  configureLogging({ level: config.logLevel, secrets: [...secrets, adapters.secret] });
  const service = await startService(config, adapters);
  const server = service.app.listen(serverOptions(config.port)).server;

  log.info({ roles: config.roles, adapters: adapters.describe(), dataDir: config.dataDir }, `scribe: roles ${config.roles.join(", ")}`);
  const serves = config.roles.includes("api") ? "API docs at /swagger" : "health, readiness and metrics";
  if (server) log.info({ port: server.port }, `listening on http://localhost:${server.port} (${serves})`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "stopping");
    await stopServing(server, service);
    await service.stop();
    await adapters.close();
    process.exit();
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  // One line per problem, so an operator fixes them all in one go.
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`scribe: configuration: ${problem}`);
  else log.fatal({ err: error }, "could not start");
  process.exit(1);
});
