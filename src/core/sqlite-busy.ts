/** How long a writer to a SQLite file the server and the CLI share waits for the other's lock instead of failing. */
export const sqliteBusyTimeoutMs = 5000;

/**
 * Runs `run` again while SQLite answers busy, for up to `sqliteBusyTimeoutMs`: what the busy handler does not cover
 * (switching to WAL does not wait on it, so two processes creating one file at once must retry).
 */
export function retryWhileBusy(run: () => void): void {
  const deadline = Date.now() + sqliteBusyTimeoutMs;
  for (;;) {
    try {
      run();
      return;
    } catch (error) {
      const busy = error instanceof Error && "code" in error && String(error.code).startsWith("SQLITE_BUSY");
      if (!busy || Date.now() > deadline) throw error;
      Bun.sleepSync(5);
    }
  }
}
