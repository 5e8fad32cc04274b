import type { AnyElysia } from "elysia";
import type { Projection } from "./projection.ts";
import type { Worker } from "./worker.ts";
import type { PeriodicJob } from "./periodic-job.ts";
import type { SettingsSchema } from "../config/setting.ts";

/**
 * One capability as the composition root wires it: its index exports one of these, and the list of them
 * (src/capabilities) is all the root, the projections list and the workers list read. Adding a capability is
 * its folder and one line in that list.
 *
 * `Api` is what its routes are built from and `Work` what its workers and jobs are: each capability names only
 * the part it reads, and the root, which builds one of each for all, fails to compile when it lacks a part.
 * Routes, workers and jobs are built by functions that import their modules when called: the command-line tools
 * read the list for its projections, and must not load the routes, the renderers or the speech engines to do so.
 * `Own` is the type of its settings, so that the whole schema the root assembles keeps each one's type.
 */
export type Capability<Api = unknown, Work = unknown, Own extends SettingsSchema = Record<never, never>> = {
  /** Its folder, `src/<name>`. */
  name: string;
  /** Its read models, started and rebuilt in the order of the list. */
  projections: readonly Projection[];
  /** Its routes, for the api role, in the order they are mounted. */
  routes?: (parts: Api) => Promise<AnyElysia[]>;
  /** Its workers, for the workers role: each runs as a durable consumer on the bus. `others` finds the process's other workers. */
  workers?: (parts: Work, others: WorkerLookup) => Promise<Worker[]>;
  /** Its timed jobs, started with the workers role and stopped with the service. */
  jobs?: (parts: Work) => Promise<PeriodicJob[]>;
  /**
   * The environment variables it declares (`settings.ts` in its folder), each placed in the reference by the section
   * it names; the composition root reads them into `Config` with the core's (src/settings-schema.ts).
   */
  settings?: Own;
};

/** The workers of this process, by name: what the dead letters' redrive worker runs a message again with. */
export type WorkerLookup = { workerNamed(name: string): Worker | undefined };
