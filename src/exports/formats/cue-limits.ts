/**
 * How subtitle cues are shaped for reading (broadcast guidelines, as the BBC's and Netflix's timed-text
 * style guides put them): lines, lines per cue and a cue's longest time are the caller's to choose; the
 * reading speed and the shortest cue are fixed, since no reader reads faster because a file asks it to.
 */
export type CueLimits = {
  /** Characters (user-perceived: a flag or an accented letter is one) on one line. */
  maxLineLength: number;
  maxLines: number;
  maxCueSeconds: number;
};

export const defaultCueLimits: Readonly<CueLimits> = { maxLineLength: 42, maxLines: 2, maxCueSeconds: 7 };

/** What a download may ask for: wide enough for any screen, narrow enough that shaping stays cheap. */
export const cueLimitBounds = {
  maxLineLength: { minimum: 10, maximum: 200 },
  maxLines: { minimum: 1, maximum: 5 },
  maxCueSeconds: { minimum: 1, maximum: 60 },
} as const satisfies Record<keyof CueLimits, { minimum: number; maximum: number }>;

/** Characters per second a viewer can read (adult programmes); a cue is kept up longer, into silence, to stay under it. */
export const maxCharactersPerSecond = 17;

/** A cue shorter than this flashes by: it is kept up longer where the next one leaves time. */
export const minCueMs = 1000;

/** A pause this long ends a cue: text is not shown across a silence before it is spoken. */
export const cueBreakingPauseMs = 1500;
