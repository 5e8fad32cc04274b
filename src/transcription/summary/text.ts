/** Sentences, content words and key phrases: the text analysis behind the extractive summary. */

const stopwordList = `a about above after again against all almost also although am among an and any are aren't around as at
away back be because been before being below between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't done down during each either else even ever every few for from further get gets getting go goes going gone got
gotten had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's
however i i'd i'll i'm i've if in into is isn't it it's its itself just know let let's like made make many may me might mine
more most much must mustn't my myself need never no nor not now of off often oh ok okay on once one only or other ought our
ours ourselves out over own perhaps quite rather really right said same say says see seem seems shall shan't she she'd she'll
she's should shouldn't since so some something still such take than that that's the their theirs them themselves then there
there's these they they'd they'll they're they've thing things think this those though through thus to too toward towards
under until up upon us very want was wasn't way we we'd we'll we're we've well went were weren't what what's when when's where
where's whether which while who who's whom whose why why's will with within without won't would wouldn't yeah yes yet you
you'd you'll you're you've your yours yourself yourselves uh um er ah hmm mm`;

export const stopwords: ReadonlySet<string> = new Set(stopwordList.split(/\s+/));

export type Sentence = { text: string; index: number; start: number; end: number; words: string[] };

/** Lower-case words of a text, apostrophes kept inside words. */
export function wordsOf(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[’‘]/g, "'")
      .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? []
  ).filter(Boolean);
}

/** A light stem so that "topic", "topics" and "topic's" count as one word. */
export function stem(word: string): string {
  let w = word.replace(/'s$/, "");
  if (w.length > 5 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  if (w.length > 6 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 5 && w.endsWith("ed")) w = w.slice(0, -2);
  return w;
}

export const contentWords = (text: string) =>
  wordsOf(text)
    .filter((w) => !stopwords.has(w) && w.length > 2 && !/^\d+$/.test(w))
    .map(stem);

/** The transcript as sentences: each segment, cut again at sentence punctuation inside it. */
export function splitSentences(segments: { start: number; end: number; text: string }[]): Sentence[] {
  const sentences: Sentence[] = [];
  for (const segment of segments) {
    const parts = segment.text.match(/[^.!?…。！？]+[.!?…。！？]*["'”’)]*/g) ?? [];
    for (const part of parts) {
      const text = part.trim();
      if (wordsOf(text).length === 0) continue;
      sentences.push({ text, index: sentences.length, start: segment.start, end: segment.end, words: contentWords(text) });
    }
  }
  return sentences;
}

/**
 * Key phrases: runs of one to three content words between stop words and punctuation, scored by
 * how often the phrase occurs and how common its words are across the transcript.
 */
export function keyPhrases(texts: string[], globalFrequency?: Map<string, number>): { phrase: string; score: number }[] {
  const frequency = globalFrequency ?? wordFrequency(texts);
  const counts = new Map<string, { phrase: string; count: number; stems: string[] }>();
  for (const text of texts) {
    for (const piece of text.split(/[.,;:!?…()"“”[\]{}\n]+/)) {
      let run: string[] = [];
      const flush = () => {
        for (let size = Math.min(3, run.length); size >= 1; size--) {
          for (let i = 0; i + size <= run.length; i++) {
            const words = run.slice(i, i + size);
            const stems = words.map(stem);
            const key = stems.join(" ");
            const entry = counts.get(key) ?? { phrase: words.join(" "), count: 0, stems };
            entry.count++;
            counts.set(key, entry);
          }
        }
        run = [];
      };
      for (const word of wordsOf(piece)) {
        if (stopwords.has(word) || word.length <= 2 || /^\d+$/.test(word)) flush();
        else run.push(word);
      }
      flush();
    }
  }
  return [...counts.values()]
    .map(({ phrase, count, stems }) => ({
      phrase,
      // A phrase said again is a topic; a single common word alone is weaker than a repeated pair.
      score: count * stems.reduce((s, w) => s + Math.log(1 + (frequency.get(w) ?? 0)), 0) * (stems.length > 1 && count > 1 ? 1.5 : 1),
    }))
    .sort((a, b) => b.score - a.score || a.phrase.localeCompare(b.phrase));
}

export function wordFrequency(texts: string[]): Map<string, number> {
  const frequency = new Map<string, number>();
  for (const text of texts) for (const word of contentWords(text)) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  return frequency;
}
