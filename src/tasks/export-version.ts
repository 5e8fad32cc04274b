/**
 * `export.version` (spec 2.1): digits in timestamp style, `yyyyMMddHHmmssSSS` (UTC) of the last change
 * to the transcript. Two changes in the same millisecond still get different versions: a version never
 * repeats or goes back, it moves one millisecond past the previous one instead.
 */
export function exportVersion(time: string, previous: string | null): string {
  const stamp = new Date(time).toISOString().replace(/[-:TZ.]/g, "");
  if (previous === null || BigInt(stamp) > BigInt(previous)) return stamp;
  return (BigInt(previous) + 1n).toString();
}
