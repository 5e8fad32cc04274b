/** The summary port: the embedded extractive summariser or an OpenAI-compatible chat endpoint. */
export type SummaryInput = { title: string; segments: { start: number; end: number; text: string }[] };
export type SummaryResult = { summary: string | null; mindmap: string | null };

export interface Summarizer {
  readonly name: string;
  summarize(input: SummaryInput, signal?: AbortSignal): Promise<SummaryResult>;
}

/** Summary or mind map could not be made; `message` is the reason recorded on the task. */
export class SummaryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SummaryError";
  }
}
