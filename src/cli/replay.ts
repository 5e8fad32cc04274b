import { loadConfig } from "../config.ts";
import { openDocumentStore, openEventStore } from "../adapters.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allProjections } from "../../projections/index.ts";
import { parseArgs } from "./args.ts";

const usage = `usage: bun run replay [NAME...]

Rebuilds read models from the event log: empties the named projections' collections (all when none
are named), then folds every stored event into them again. Known projections: ${allProjections.map((p) => p.name).join(", ") || "(none yet)"}`;

async function main(): Promise<number> {
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
  const config = loadConfig();
  const store = await openEventStore(config);
  const documents = await openDocumentStore(config);
  try {
    const started = performance.now();
    const results = await new ProjectionRunner(store, documents, allProjections).rebuild(words);
    for (const { name, events } of results) console.log(`replayed ${name}: ${events} events`);
    console.log(`replay done in ${Math.round(performance.now() - started)} ms`);
  } finally {
    await documents.close();
    await store.close();
  }
  return 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
