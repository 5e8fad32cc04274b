import { loadConfig } from "../config.ts";
import { openBlobStore, openDocumentStore, openEventStore } from "../adapters.ts";
import { Leases } from "../core/lease.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { EventStore } from "../core/event-store.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allProjections } from "../../projections/index.ts";
import type { Projection, ProjectionContext } from "../core/projection.ts";
import { buildShadow, replayRequests, shadowName, swapShadowIn } from "../../projections/rebuild.ts";
import { Checkpoints } from "../../projections/checkpoints.ts";
import { parseArgs } from "./args.ts";
import { TranscriptStore } from "../tasks/transcripts.ts";
import { logToStderr } from "../logging/logger.ts";

const usage = `usage: bun run replay [NAME...]

Rebuilds read models from the event log: folds every stored event into new collections beside the
live ones (all projections when none are named), then swaps each in whole once it has caught up, so
readers never see an emptied or half-built model. With a server running, the server's projection
writer does the swap; otherwise this command does. Known projections: ${allProjections.map((p) => p.name).join(", ") || "(none yet)"}`;

/** How long a running writer may take to swap a rebuilt model in before the replay gives up on it. */
const SWAP_TIMEOUT_MS = 60_000;

async function main(): Promise<number> {
  // Its stdout is what it prints for people and scripts: log lines from the code it runs go to stderr.
  logToStderr();
  const { options, words } = parseArgs(process.argv.slice(2));
  if (options.has("help")) {
    console.log(usage);
    return 0;
  }
  const unknown = words.filter((name) => !allProjections.some((p) => p.name === name));
  if (unknown.length > 0) {
    console.error(`replay: unknown projection ${unknown.join(", ")}\n\n${usage}`);
    return 2;
  }
  const chosen = words.length === 0 ? allProjections : allProjections.filter((p) => words.includes(p.name));
  const config = loadConfig();
  const store = await openEventStore(config);
  const documents = await openDocumentStore(config);
  // The search read model reads transcripts, which are blobs.
  const blobs = openBlobStore(config);
  const context: ProjectionContext = { transcripts: new TranscriptStore(blobs) };
  const leases = new Leases(documents);
  try {
    const started = performance.now();
    if ((await leases.acquire("projections", config.leaseTtlMs)) !== null) {
      // No server writes the read models: this process is their writer until it is done.
      const results = await leases.whileHeld("projections", config.leaseTtlMs, (lease) =>
        new ProjectionRunner(store, documents, allProjections, lease, context).rebuild(chosen.map((p) => p.name)),
      );
      for (const { name, events } of results) console.log(`replayed ${name}: ${events} events`);
    } else {
      console.log(`a server is writing the read models (${await leases.holderOf("projections")}): building beside them, then it swaps them in`);
      for (const projection of chosen) {
        const events = await replayBesideWriter(store, documents, projection, leases, config.leaseTtlMs, context);
        console.log(`replayed ${projection.name}: ${events} events, swapped in by the running server`);
      }
    }
    console.log(`replay done in ${Math.round(performance.now() - started)} ms`);
  } finally {
    await blobs.close();
    await documents.close();
    await store.close();
  }
  return 0;
}

/** Builds the projection's shadow here and asks the running writer to catch it up and swap it in. */
async function replayBesideWriter(
  store: EventStore,
  documents: DocumentStore,
  projection: Projection,
  leases: Leases,
  leaseTtlMs: number,
  context: ProjectionContext,
): Promise<number> {
  const built = await buildShadow(store, documents, projection, context);
  const requests = replayRequests(documents);
  await requests.replaceOne(
    { _id: projection.name },
    { _id: projection.name, state: "ready", position: built.position, requestedAt: new Date().toISOString() },
    { upsert: true },
  );
  const deadline = Date.now() + SWAP_TIMEOUT_MS;
  for (;;) {
    const request = await requests.findOne({ _id: projection.name });
    if (request?.state === "done") return built.events;
    if (request?.state === "failed") throw new Error(`the server could not swap ${projection.name} in: ${request.message ?? "no reason given"}`);
    // The writer went away (stopped, or its lease ran out): then the swap is this process's to do.
    if ((await leases.acquire("projections", leaseTtlMs)) !== null) {
      await leases.whileHeld("projections", leaseTtlMs, async (lease) => {
        await swapShadowIn(store, documents, new Checkpoints(documents, lease), projection, built.position, context);
        await requests.deleteOne({ _id: projection.name });
      });
      return built.events;
    }
    if (Date.now() > deadline) {
      await requests.deleteOne({ _id: projection.name, state: "ready" });
      for (const collection of projection.collections) await documents.dropCollection(shadowName(collection));
      throw new Error(
        `the running server did not swap ${projection.name} in within ${SWAP_TIMEOUT_MS / 1000} s ` +
          "(is it an older version, or stopped without giving up its lease?); its live read model is unchanged",
      );
    }
    await Bun.sleep(50);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? `replay: ${error.message}` : error);
    process.exit(1);
  },
);
