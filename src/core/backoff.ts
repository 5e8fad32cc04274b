/** Wait before the n-th retry in a row (n from 1): 0.5 s, doubling, at most 30 s. */
export const backoffMs = (failures: number): number => Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6));
