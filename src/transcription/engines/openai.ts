import { RecognitionError, wordsOfPhrase, type Recognition, type RecognizeOptions, type RecognizedWord, type SpeechEngine } from "../engine.ts";
import type { OpenAiEndpoint } from "../config.ts";
import { postOpenAi, UpstreamError } from "../openai-http.ts";

/** The `verbose_json` answer of /v1/audio/transcriptions (times in seconds); plain `json` has only `text`. */
export type TranscriptionAnswer = {
  text?: string;
  segments?: { start: number; end: number; text: string; avg_logprob?: number }[];
  words?: { word: string; start: number; end: number }[];
};

const ms = (seconds: number) => Math.round(seconds * 1000);
const bare = (token: string) => token.toLowerCase().replace(/[^\p{L}\p{N}']/gu, "");

/**
 * Turns the answer into words. Segments carry punctuation; `words` (when the server gives them) carry
 * exact times: a segment whose words line up one to one takes their times, the others share their
 * segment's time by word length.
 */
export function wordsOfAnswer(answer: TranscriptionAnswer, durationMs: number): Recognition {
  const apiWords = answer.words ?? [];
  if (answer.segments && answer.segments.length > 0) {
    let next = 0;
    const words: RecognizedWord[] = [];
    for (const segment of answer.segments) {
      const confidence = segment.avg_logprob === undefined ? null : Math.min(1, Math.exp(segment.avg_logprob));
      const tokens = segment.text.split(/\s+/).filter(Boolean);
      const inside: { word: string; start: number; end: number }[] = [];
      while (next < apiWords.length && apiWords[next]!.start < segment.end + 0.01) inside.push(apiWords[next++]!);
      const aligned = inside.length === tokens.length && tokens.every((t, i) => bare(t) === bare(inside[i]!.word));
      if (aligned) for (const [i, text] of tokens.entries()) words.push({ text, start: ms(inside[i]!.start), end: ms(inside[i]!.end), confidence });
      else words.push(...wordsOfPhrase(segment.text.trim(), ms(segment.start), ms(segment.end), confidence));
    }
    return { words, punctuated: true };
  }
  if (apiWords.length > 0) return { words: apiWords.map((w) => ({ text: w.word, start: ms(w.start), end: ms(w.end), confidence: null })), punctuated: false };
  return { words: wordsOfPhrase((answer.text ?? "").trim(), 0, durationMs, null), punctuated: true };
}

/** Any OpenAI-compatible `/v1/audio/transcriptions` endpoint (OpenAI, a local whisper server, ...). */
export class OpenAiEngine implements SpeechEngine {
  readonly name = "openai";
  constructor(private readonly endpoint: OpenAiEndpoint & { language: string | null }) {}

  async recognize(wavPath: string, { durationMs, signal }: RecognizeOptions): Promise<Recognition> {
    const form = () => {
      const body = new FormData();
      body.append("file", Bun.file(wavPath, { type: "audio/wav" }), "chunk.wav");
      body.append("model", this.endpoint.model);
      body.append("response_format", "verbose_json");
      body.append("timestamp_granularities[]", "segment");
      body.append("timestamp_granularities[]", "word");
      if (this.endpoint.language) body.append("language", this.endpoint.language);
      return body;
    };
    try {
      const answer = await postOpenAi<TranscriptionAnswer>(this.endpoint, "audio/transcriptions", form, { signal, service: "speech recognition service" });
      return wordsOfAnswer(answer, durationMs);
    } catch (error) {
      if (error instanceof UpstreamError) throw new RecognitionError(error.message);
      throw error;
    }
  }
}
