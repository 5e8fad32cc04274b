import type { Segment } from "../tasks/segments.ts";
import type { RecognizedWord } from "./engine.ts";
import type { AttemptWork } from "./attempt-work.ts";
import { diarize } from "./diarization.ts";
import { segmentWords } from "./segmenting.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import { readSamples } from "./wav.ts";

/** A transcript as it is recorded: its segments (speakers told apart when asked), summary and mind map, and what could not be made. */
export type Described = {
  segments: Segment[];
  summary: string | null;
  mindmap: string | null;
  diarizationFailure: string | null;
  summaryFailure: string | null;
};

/**
 * Recognised words made into segments, told apart by speaker when the task asks, and summarised. Speakers, summary
 * and mind map may fail without failing the task: the failure is kept to record. `pcm`: the media, read to tell speakers apart.
 */
export async function describeTranscript(
  work: AttemptWork,
  recognised: { words: RecognizedWord[]; punctuated: boolean; pcm: string },
  summarizer: Summarizer,
  maxSpeakers: number,
): Promise<Described> {
  const { facts, signal, time } = work;
  const { words, punctuated, pcm } = recognised;
  let segments = await time("segment", () => segmentWords(words, punctuated));
  let diarizationFailure: string | null = null;
  if (facts.speakerDiarization) {
    await time("diarize", async () => {
      try {
        segments = await diarize(segments, (start, end) => readSamples(pcm, start, end), { maxSpeakers });
      } catch (error) {
        diarizationFailure = `Speakers could not be told apart: ${(error as Error).message}`;
      }
    });
  }
  let summary: string | null = null;
  let mindmap: string | null = null;
  let summaryFailure: string | null = null;
  await time("summarize", async () => {
    try {
      ({ summary, mindmap } = await summarizer.summarize({ title: facts.name, segments }, signal));
    } catch (error) {
      if (signal?.aborted) throw error;
      summaryFailure = `Summary and mind map could not be made: ${(error as Error).message}`;
    }
  });
  return { segments, summary, mindmap, diarizationFailure, summaryFailure };
}
