/** PocketSphinx's tokens, as its program prints them and its library returns them (the batch and the live engine read both). */

/** Sentence markers, silence and noise fillers: times, not words. */
export function isFiller(token: string): boolean {
  return token === "<s>" || token === "</s>" || token === "<sil>" || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token);
}
