export type PeriodicJob = { stop(): void };

/**
 * Runs `work` every `everyMs` (and once after `firstAfterMs`, when given), never two runs at once,
 * logging a failure instead of stopping: the next run tries again.
 */
export function startPeriodicJob(name: string, work: () => Promise<void>, options: { everyMs: number; firstAfterMs?: number }): PeriodicJob {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await work();
    } catch (error) {
      console.error(`${name}:`, error);
    } finally {
      running = false;
    }
  };
  const first = options.firstAfterMs === undefined ? null : setTimeout(run, options.firstAfterMs);
  const timer = setInterval(run, options.everyMs);
  return {
    stop() {
      if (first) clearTimeout(first);
      clearInterval(timer);
    },
  };
}
