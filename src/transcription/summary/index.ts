import type { TranscriptionConfig } from "../config.ts";
import { ExtractiveSummarizer } from "./extractive.ts";
import { OpenAiSummarizer } from "./openai.ts";
import type { Summarizer } from "./summarizer.ts";

/** The chat endpoint when SUMMARY_OPENAI_URL is set, else the embedded extractive summariser. */
export function createSummarizer(config: Pick<TranscriptionConfig, "summaryOpenai">): Summarizer {
  return config.summaryOpenai ? new OpenAiSummarizer(config.summaryOpenai) : new ExtractiveSummarizer();
}
