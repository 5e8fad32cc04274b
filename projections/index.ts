import type { Projection } from "../src/core/projection.ts";
import { capabilities } from "../src/capabilities/index.ts";

/**
 * Every read model of the service, as each capability's manifest declares them, in the order they are started and
 * rebuilt. The command-line tools load this list: a manifest imports its routes, workers and renderers only when
 * asked to build them, so reading it costs the projections alone.
 */
export const allProjections: Projection[] = capabilities.flatMap((capability) => capability.projections);
