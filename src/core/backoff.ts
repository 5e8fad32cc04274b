/** Wait before the n-th retry in a row (n from 1): 0.5 s, doubling, at most 30 s. */
export const backoffMs = (failures: number): number => Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6));

/** Wait before try `attempt` (from 0) while something outside is away: 250 ms, doubling, at most `capMs`. */
export const doublingMs = (attempt: number, capMs: number): number => Math.min(250 * 2 ** attempt, capMs);
