import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { openAdapters } from "../src/adapters.ts";
import { startService } from "../src/service.ts";

/** The address the committed client's document names as its server (a deployment passes its own base URL). */
export const documentedServer = "http://localhost:3000";

/** The OpenAPI document exactly as a running service serves it, from a throwaway API process in a temp DATA_DIR. */
export async function currentOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-openapi-"));
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: documentedServer, ROLES: "api,projections" });
  const adapters = await openAdapters(config);
  const service = await startService(config, adapters);
  try {
    const response = await service.app!.handle(new Request(`${documentedServer}/swagger/json`));
    return (await response.json()) as Record<string, unknown>;
  } finally {
    await service.stop();
    await adapters.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
