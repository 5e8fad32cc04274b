import type { OpenAiEndpoint } from "../config.ts";
import { postOpenAi, UpstreamError } from "../openai-http.ts";
import { SummaryError, type Summarizer, type SummaryInput, type SummaryResult } from "./summarizer.ts";

type ChatAnswer = { choices?: { message?: { content?: string | null } }[] };

/** The transcript sent to the model, cut to about this many characters (long transcripts keep their start). */
const maxTranscriptChars = 60_000;

const summaryPrompt =
  "You summarise transcripts. Write a short summary (at most 120 words) of the transcript the user sends, in the language of the transcript. " +
  "Answer with the summary only.";
const mindMapPrompt =
  "You turn transcripts into mind maps. Write a mind map of the transcript the user sends as a Markdown outline: one '# ' title line, then for " +
  "each main topic a '## ' line followed by '- ' lines with its key points. Use the language of the transcript. Answer with the outline only.";

/** Removes a ```markdown fence some models wrap their answer in. */
export function unfence(text: string): string {
  const match = /^\s*```[\w-]*\n([\s\S]*?)\n```\s*$/.exec(text);
  return (match ? match[1]! : text).trim();
}

/** Any OpenAI-compatible `/v1/chat/completions` endpoint writes the summary and the mind map (two requests). */
export class OpenAiSummarizer implements Summarizer {
  readonly name = "openai";
  constructor(private readonly endpoint: OpenAiEndpoint) {}

  private async ask(system: string, transcript: string, signal?: AbortSignal): Promise<string> {
    const body = () =>
      JSON.stringify({
        model: this.endpoint.model,
        temperature: 0.2,
        messages: [
          { role: "system", content: system },
          { role: "user", content: transcript },
        ],
      });
    try {
      const answer = await postOpenAi<ChatAnswer>(this.endpoint, "chat/completions", body, {
        json: true,
        signal,
        timeoutMs: 120_000,
        service: "summary service",
      });
      const content = answer.choices?.[0]?.message?.content;
      if (typeof content !== "string" || content.trim() === "") throw new SummaryError("The summary service answered without any text.");
      return unfence(content);
    } catch (error) {
      if (error instanceof UpstreamError) throw new SummaryError(error.message);
      throw error;
    }
  }

  async summarize(input: SummaryInput, signal?: AbortSignal): Promise<SummaryResult> {
    const text = input.segments.map((s) => s.text).join("\n");
    if (text.trim() === "") return { summary: null, mindmap: null };
    const transcript = `Title: ${input.title}\n\n${text.slice(0, maxTranscriptChars)}`;
    const [summary, mindmap] = await Promise.all([this.ask(summaryPrompt, transcript, signal), this.ask(mindMapPrompt, transcript, signal)]);
    return { summary, mindmap };
  }
}
