import { readdirSync, readFileSync } from "node:fs";

const MiB = 1024 * 1024;

/** VmRSS and VmHWM (the peak RSS since the process started) of a process, in bytes; null once it is gone. */
export function memoryOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return null;
  }
}

/** The ids of a process's descendants, from /proc/<pid>/task/<tid>/children. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let children = "";
      try {
        children = readFileSync(`/proc/${parent}/task/${tid}/children`, "utf8");
      } catch {
        continue;
      }
      for (const child of children.split(" ").filter(Boolean).map(Number)) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

export const mib = (bytes: number) => bytes / MiB;

/**
 * Samples a process's RSS every `everyMs` from /proc/<pid>/status. `peak` is the larger of the highest
 * sample and VmHWM, so a spike between two samples is not missed (VmHWM counts from the process's start).
 */
export class RssSampler {
  maxRss = 0;
  hwm = 0;
  samples = 0;
  /** The highest sum of the RSS of the process's descendants (child processes it spawned), if any. */
  maxChildrenRss = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly pid: number,
    private readonly everyMs = 50,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    return this;
  }

  sample(): void {
    const memory = memoryOf(this.pid);
    if (!memory) return;
    this.samples++;
    this.maxRss = Math.max(this.maxRss, memory.rss);
    this.hwm = Math.max(this.hwm, memory.hwm);
    const children = descendantsOf(this.pid).reduce((sum, child) => sum + (memoryOf(child)?.rss ?? 0), 0);
    this.maxChildrenRss = Math.max(this.maxChildrenRss, children);
  }

  stop(): { maxRss: number; hwm: number; peak: number; samples: number; maxChildrenRss: number } {
    this.sample();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return { maxRss: this.maxRss, hwm: this.hwm, peak: Math.max(this.maxRss, this.hwm), samples: this.samples, maxChildrenRss: this.maxChildrenRss };
  }
}
