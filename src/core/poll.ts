/**
 * Checks until `check` says yes or `timeoutMs` has passed, pausing 2 ms at first and doubling up to
 * 100 ms: how a request waits for a process manager's effect (read-your-writes across streams) without
 * a subscription. Says whether the check passed.
 */
export async function pollUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await Bun.sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
  }
}
