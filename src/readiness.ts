import { existsSync } from "node:fs";
import type { Config, Role } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { Dependency } from "./health/readiness.ts";

/**
 * What this process depends on, for `GET /api/ready`: the four ports for every role, and for a process
 * that transcribes, ffmpeg and its speech engine. Each check is the cheapest real use of the dependency.
 */
export function dependenciesOf(config: Config, adapters: Adapters, roles: ReadonlySet<Role>): Dependency[] {
  const dependencies: Dependency[] = [
    { name: "event store", check: async () => void (await adapters.eventStore.readAll({ limit: 1 })) },
    { name: "read models", check: async () => void (await adapters.documents.collection("checkpoints").findOne({ _id: "readiness" })) },
    { name: "bus", check: () => adapters.bus.ping() },
    { name: "blobs", check: async () => void (await adapters.blobs.head("readiness/probe")) },
  ];
  if (roles.has("workers") && config.transcription.worker) {
    dependencies.push({
      name: "ffmpeg",
      check: async () => needs(Bun.which("ffmpeg") !== null && Bun.which("ffprobe") !== null, "ffmpeg and ffprobe are not on PATH"),
    });
    const { engine } = config.transcription;
    if (engine === "sphinx")
      dependencies.push({
        name: "speech engine (sphinx)",
        check: async () => needs(Bun.which(config.transcription.sphinx.binary) !== null, `${config.transcription.sphinx.binary} is not on PATH`),
      });
    if (engine === "whisper")
      dependencies.push({
        name: "speech engine (whisper)",
        check: async () => needs(existsSync(config.transcription.whisper.model ?? ""), "the whisper model file is missing"),
      });
    if (engine === "openai")
      dependencies.push({ name: "speech engine (openai)", check: async () => needs(config.transcription.openai !== null, "no endpoint configured") });
  }
  return dependencies;
}

function needs(condition: boolean, reason: string): void {
  if (!condition) throw new Error(reason);
}
