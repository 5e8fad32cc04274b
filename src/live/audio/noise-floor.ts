/**
 * The background level voice-activity detection compares against, by minimum statistics: the quietest 100 ms of the
 * last few seconds. Pauses between words and sentences keep it at the room's level while someone talks, and it follows
 * a change of room (a fan turned on) within the window. Never below a floor of its own, so digital silence does not
 * make the faintest hiss count as speech.
 */

/** The window the minimum is taken over. */
const windowMs = 5000;
const blockMs = 100;
/** The quietest background the detector assumes (dBFS): a speech frame is at least this plus the margin. */
const quietestDb = -65;

export class NoiseFloor {
  private readonly framesPerBlock: number;
  private readonly blocks: number[] = [];
  private blockPower = 0;
  private blockFrames = 0;

  constructor(frameMs: number) {
    this.framesPerBlock = Math.max(1, Math.round(blockMs / frameMs));
  }

  /** The floor in dBFS: the quietest finished block of the window, or of the current block before one has finished. */
  level(): number {
    const current = this.blockFrames > 0 ? toDb(this.blockPower / this.blockFrames) : Number.POSITIVE_INFINITY;
    const quietest = this.blocks.length > 0 ? Math.min(...this.blocks) : current;
    return Math.max(quietestDb, Number.isFinite(quietest) ? quietest : quietestDb);
  }

  /** Adds one frame's level (dBFS). */
  add(levelDb: number): void {
    this.blockPower += 10 ** (levelDb / 10);
    this.blockFrames++;
    if (this.blockFrames < this.framesPerBlock) return;
    this.blocks.push(toDb(this.blockPower / this.blockFrames));
    if (this.blocks.length > windowMs / blockMs) this.blocks.shift();
    this.blockPower = 0;
    this.blockFrames = 0;
  }
}

function toDb(power: number): number {
  return 10 * Math.log10(power + 1e-12);
}
