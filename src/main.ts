import { ConfigError, loadConfig } from "./config.ts";
import { openAdapters } from "./adapters.ts";
import { startService } from "./service.ts";
import { serverOptions } from "./http/server-options.ts";
import { configureLogging, logger } from "./logging/logger.ts";
import { settingNames, settingOf } from "./settings-schema.ts";

const log = logger("scribe");

/** The values of the settings the schema marks secret: the logger blanks them wherever they would appear. */
function secretSettingValues(env: Record<string, string | undefined>): string[] {
  return settingNames.filter((name) => settingOf(name).secret).flatMap((name) => env[name]?.trim() || []);
}

/** The composition root: reads configuration once, opens the adapters, starts this process's roles. */
async function main(): Promise<void> {
  const config = loadConfig();
  const secrets = secretSettingValues(process.env);
  configureLogging({ level: config.logLevel, secrets });
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
    await server?.stop();
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
