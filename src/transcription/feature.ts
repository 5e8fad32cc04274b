import type { AnyElysia } from "elysia";
import type { Config } from "../config.ts";
import type { Adapters } from "../adapters.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { Tasks } from "../tasks/service.ts";
import { createSummarizer } from "./summary/index.ts";
import { Summaries } from "./summaries.ts";
import { transcriptionRoutes } from "./routes.ts";

/** The API side of transcription: refresh-summary and the live status stream. */
export function transcriptionFeature(config: Config, adapters: Adapters, tasks: Tasks, waitFor: WaitForProjections, authenticated: AnyElysia): AnyElysia {
  const summaries = new Summaries(adapters.eventStore, tasks, createSummarizer(config.transcription), waitFor);
  return transcriptionRoutes({ tasks, db: adapters.documents, summaries, authenticated });
}
