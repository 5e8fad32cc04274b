/** A dependency the process needs, with a cheap check that throws when it cannot be used. */
export type Dependency = { name: string; check: () => Promise<void> };

export type DependencyReport = { name: string; ok: boolean; latency_ms: number; error?: string };

/**
 * Checks every dependency at once, each bounded by `timeoutMs` (a dependency that hangs is down), so an
 * orchestrator asking `GET /api/ready` learns within seconds that one went away, and again that it came
 * back, without a restart: nothing is cached.
 */
export async function checkDependencies(dependencies: readonly Dependency[], timeoutMs = 2_000): Promise<DependencyReport[]> {
  return Promise.all(
    dependencies.map(async ({ name, check }) => {
      const started = performance.now();
      const latency = () => Math.round((performance.now() - started) * 10) / 10;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([
          check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { name, ok: true, latency_ms: latency() };
      } catch (error) {
        return { name, ok: false, latency_ms: latency(), error: (error as Error).message };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}
