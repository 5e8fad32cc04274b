/** Limits count in fixed one-minute windows: start a burst well inside one, so it cannot straddle two. */
export async function awayFromMinuteBoundary(marginMs = 3000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await Bun.sleep(60_000 - intoMinute + 50);
}
