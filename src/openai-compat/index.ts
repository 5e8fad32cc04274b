/** OpenAI compatibility: OpenAI's transcription endpoint and model list, on top of the tasks capability. It has no read models or workers of its own. */
import type { Capability } from "../core/capability.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptionConfig } from "../transcription/config.ts";
import { openAiCompatSettings } from "./settings.ts";

export type { ServedModel } from "./models.ts";

type OpenAiApiParts = {
  adapters: { blobs: BlobStore };
  config: { openAiCompatWaitMs: number; transcription: TranscriptionConfig };
  tasks: Tasks;
  authenticated: Authenticated;
};

export const capability: Capability<OpenAiApiParts, unknown, typeof openAiCompatSettings> = {
  name: "openai-compat",
  settings: openAiCompatSettings,
  projections: [],
  routes: async ({ adapters, config, tasks, authenticated }) => {
    const [{ OpenAiTranscriptions }, { openAiRoutes }] = await Promise.all([import("./service.ts"), import("./routes.ts")]);
    return [
      openAiRoutes({
        transcriptions: new OpenAiTranscriptions(tasks, adapters.blobs, config.openAiCompatWaitMs, config.transcription),
        offer: tasks.recognitionOffer,
        waitSeconds: config.openAiCompatWaitMs / 1000,
        authenticated,
      }),
    ];
  },
};
