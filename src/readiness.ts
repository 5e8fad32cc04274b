import { existsSync } from "node:fs";
import type { Config, Role } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { Dependency } from "./health/readiness.ts";

/** The stores every role uses: what a worker asks after a failure, to tell an outage from a message it cannot handle. */
export function storeDependencies(adapters: Adapters): Dependency[] {
  return [
    { name: "event store", check: async () => void (await adapters.eventStore.readAll({ limit: 1 })) },
    { name: "read models", check: async () => void (await adapters.documents.collection("checkpoints").findOne({ _id: "readiness" })) },
    { name: "blobs", check: async () => void (await adapters.blobs.head("readiness/probe")) },
  ];
}

/** The projection writer as readiness sees it: whether this process holds its lease, and what of it is not running. */
export type ProjectionsState = { writerHere(): boolean; notRunning(): { name: string; failingForMs: number }[]; holder(): Promise<string | null> };

/**
 * What this process depends on, for `GET /api/ready`, by the roles it plays and only what they use: every role
 * the event store, the read models and the blobs; the workers the bus (the relay and the workers use it, the API
 * does not, so a bus outage leaves the API ready), ffmpeg and the speech engine when it transcribes; the
 * projections role its projections, running here or in the process that holds their lease. Each check is the
 * cheapest real use of the dependency.
 */
export function dependenciesOf(config: Config, adapters: Adapters, roles: ReadonlySet<Role>, projections?: ProjectionsState): Dependency[] {
  const dependencies: Dependency[] = storeDependencies(adapters);
  if (roles.has("workers")) dependencies.push({ name: "bus", check: () => adapters.bus.ping() });
  if (roles.has("projections") && projections) {
    dependencies.push({
      name: "projections",
      check: async () => {
        if (projections.writerHere()) {
          const stopped = projections.notRunning();
          const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
          needs(stopped.length === 0, `not running: ${stopped.map((p) => `${p.name} (failing for ${seconds(p.failingForMs)})`).join(", ")}`);
        } else needs((await projections.holder()) !== null, "no process holds the projections lease");
      },
    });
  }
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
