/**
 * PocketSphinx's search, tuned on the LibriSpeech clips in ../shared/testdata and checked on jfk.wav
 * (bench/wer-tuning.bench.ts prints the table, scored by sclite and by wer.ts). Each flag stayed only because it
 * lowered the clips' WER without raising jfk.wav's:
 * - `-lw 5` (language weight, default 6.5): trusts the sounds more than the language model's guesses; clips
 *   0.276 → 0.259, and jfk.wav 0.636 → 0.364 ("ask not what your country can do for you" comes out whole).
 * - `-wip 4` (word insertion penalty, default 0.65): the default let the language model split long words into short
 *   common ones ("turnips" → "turn up some"); clips 0.259 → 0.207.
 * Left out because they changed nothing on top of these or made jfk.wav worse: ffmpeg's audio preparation (a 100 Hz
 * high-pass helped the clips alone, 0.259, but nothing with these flags; loudness normalisation nothing; `afftdn`
 * noise reduction raised both), wider beams (slower, same words), `-fwdflat no` and `-bestpath no` (jfk.wav worse).
 * `-lw 5.5` scored 0.190 but swings to 0.259 with the penalty one step off; `-lw 5` holds 0.207 from `-wip 3` to 6.
 * Chunks are already cut at pauses (chunking.ts), so no word is cut in two.
 */
export const tunedDecoderFlags = ["-lw", "5", "-wip", "4"] as const;
