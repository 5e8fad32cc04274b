/** Where progress goes: stderr, or a stand-in in tests. */
export type ProgressStream = { isTTY?: boolean; write(text: string): unknown };

export type ProgressReporter = { update(received: number, total: number): void; done(): void };

const megabytes = (bytes: number) => (bytes / 1_000_000).toFixed(1);
const barWidth = 30;

/**
 * A download's progress: on a terminal, one bar redrawn in place (at most ten times a second); elsewhere (a log, a
 * pipe) a line at every tenth, so a log keeps a readable trace instead of carriage returns.
 */
export function progressReporter(label: string, stream: ProgressStream = process.stderr, now: () => number = Date.now): ProgressReporter {
  let drawnAt = 0;
  let drawn = false;
  let lastTenth = -1;
  return {
    update(received, total) {
      const share = total > 0 ? Math.min(1, received / total) : 0;
      const percent = `${(share * 100).toFixed(1)}%`;
      if (stream.isTTY) {
        if (now() - drawnAt < 100 && share < 1) return;
        drawnAt = now();
        drawn = true;
        const filled = Math.round(share * barWidth);
        stream.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(barWidth - filled)}] ${percent.padStart(6)} ${megabytes(received)}/${megabytes(total)} MB`);
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stream.write(`${label}: ${percent} (${megabytes(received)} of ${megabytes(total)} MB)\n`);
    },
    done() {
      if (drawn) stream.write("\n");
      drawn = false;
    },
  };
}
