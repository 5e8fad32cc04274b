/**
 * Runs restore-compensation.ts on a restored copy in a process of its own, then seals the copy's databases (each
 * one file again, its write-ahead log folded in) once that process has exited and left no connection open.
 */
import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig, type Config } from "../config.ts";
import { logToStderr } from "../logging/logger.ts";
import { dataFiles } from "../backup/data-dir.ts";
import { sealDataKeysCopy, sealLogCopy, sealReadModelsCopy } from "../backup/database-copy.ts";
import { BackupRefused } from "../backup/manifest.ts";
import { noCompensation, type Compensation, type RestoredCopy } from "../backup/restore.ts";
import { compensateCopy, rebuiltReadModels } from "./restore-compensation.ts";

/** The hook `admin restore` gives restoreBackup (src/backup/restore.ts). */
export function compensateErasures(config: Config): (copy: RestoredCopy) => Promise<Compensation> {
  return async (copy) => {
    if (copy.ledger.length === 0) return noCompensation;
    const child = Bun.spawn([process.execPath, import.meta.path], {
      // The search read model's notes on every transcript the erasure removed are expected here: warnings only.
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn", DATA_DIR: config.dataDir },
      stdin: new Blob([JSON.stringify(copy)]),
      stdout: "pipe",
      stderr: "inherit",
    });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (code !== 0) throw new BackupRefused(`re-applying the erasures to the restored copy failed (exit ${code}); ${copy.dir} is left as it is`);
    const compensation = JSON.parse(out.trim().split("\n").at(-1) ?? "null") as Compensation;
    sealLogCopy(join(copy.dir, dataFiles.events));
    sealDataKeysCopy(join(copy.dir, dataFiles.dataKeys));
    const rebuilt = join(copy.dir, rebuiltReadModels);
    if (existsSync(rebuilt)) {
      sealReadModelsCopy(rebuilt);
      await rename(rebuilt, join(copy.dir, dataFiles.readModels));
    }
    return compensation;
  };
}

if (import.meta.main) {
  const config = loadConfig();
  logToStderr(config.logLevel);
  const copy = JSON.parse(await Bun.stdin.text()) as RestoredCopy;
  const compensation = await compensateCopy(config, copy);
  console.log(JSON.stringify(compensation));
  process.exit(0);
}
