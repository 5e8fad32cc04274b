/** OpenAI compatibility: OpenAI's transcription endpoint and model list, on top of the tasks capability. It has no read models or workers of its own. */
export { OpenAiTranscriptions } from "./service.ts";
export { openAiRoutes, type ServedModel } from "./routes.ts";
export { servedLanguage, servedModels } from "./models.ts";
