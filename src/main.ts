import { ConfigError, loadConfig } from "./config.ts";
import { openAdapters } from "./adapters.ts";
import { startService } from "./service.ts";

/** The composition root: reads configuration once, opens the adapters, starts this process's roles. */
async function main(): Promise<void> {
  const config = loadConfig();
  const adapters = await openAdapters(config);
  const service = await startService(config, adapters);
  // Parts stream to disk, but Bun still caps request bodies: allow a whole 2 GiB file plus slack.
  const server = service.app.listen({ port: config.port, maxRequestBodySize: 2 ** 31 + 2 ** 20 }).server;

  console.log(`scribe: roles ${config.roles.join(", ")}; ${adapters.describe()}; data in ${config.dataDir}`);
  if (server)
    console.log(
      `scribe: listening on http://localhost:${server.port} (${config.roles.includes("api") ? "API docs at /swagger" : "health, readiness and metrics"})`,
    );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`scribe: ${signal}, stopping`);
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
  else console.error(error);
  process.exit(1);
});
