/**
 * Partial text as it firms up. A hypothesis changes as audio arrives, and a delta cannot be taken back, so a word is
 * sent only once it looks settled: two successive hypotheses agree on it and on every word before it, or the decoder
 * has begun another word after it (the last word of a hypothesis is the one still being heard; those before it rarely
 * change, and waiting for a second hypothesis cost the first delta a whole partial's time). The deltas of a turn,
 * joined, are always a prefix of words of some hypothesis. When a later hypothesis revises words already sent, nothing
 * more is sent until one agrees with them again: the turn's `completed` carries the final text either way.
 */
const wordsOf = (text: string): string[] => text.split(/\s+/u).filter((word) => word !== "");

export class FirmingText {
  private previous: string[] = [];
  private sent: string[] = [];

  /** The delta a new hypothesis firms up ("" when none): the agreed words past those already sent, with a leading space after the first. */
  next(hypothesis: string): string {
    const current = wordsOf(hypothesis);
    let agreed = 0;
    while (agreed < current.length && agreed < this.previous.length && current[agreed] === this.previous[agreed]) agreed++;
    agreed = Math.max(agreed, current.length - 1);
    this.previous = current;
    if (agreed <= this.sent.length) return "";
    for (let i = 0; i < this.sent.length; i++) if (current[i] !== this.sent[i]) return "";
    const firmed = current.slice(this.sent.length, agreed);
    const delta = (this.sent.length > 0 ? " " : "") + firmed.join(" ");
    this.sent = current.slice(0, agreed);
    return delta;
  }

  /** A new turn. */
  reset(): void {
    this.previous = [];
    this.sent = [];
  }
}
