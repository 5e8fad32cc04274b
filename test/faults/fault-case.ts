import { printFigures, type Observer } from "./invariants.ts";
import type { Load } from "./load.ts";
import { until } from "../support/eventually.ts";

/**
 * One fault case under load: the load runs, the fault is injected once recognition is in flight, then the case
 * measures how long the read models took to be current again (every checkpoint at the log's end as the fault ended)
 * and waits for new work to be accepted after it. The load stops, everything settles, and the figures line is printed
 * before the invariants are asserted, so a failing case still reports its figures.
 *
 * FAULTS_DEBUG=1 prints when each phase ended (FAULT-PHASES) and the log's last events (FAULT-TAIL) as well.
 *
 * `inject` resolves when the fault is over (the process continued, restarted, the server back), with an object of
 * figures of its own to add, or anything else.
 */
export async function faultCase(
  name: string,
  context: { observer: Observer; load: Load },
  inject: () => Promise<unknown>,
  /** false: inject at once, without waiting for recognition in flight (a fault already under way). */
  options: { waitForWork?: boolean } = {},
): Promise<void> {
  const { observer, load } = context;
  const since = await observer.head();
  const phases: Record<string, number> = {};
  const began = Date.now();
  const mark = (phase: string) => (phases[phase] = round((Date.now() - began) / 1000));
  load.start();
  const inFlightAtFault = options.waitForWork === false ? observer.inFlight() : await observer.workInFlight();
  const faultStart = Date.now();
  mark("faultStart");
  let own: Record<string, unknown> = {};
  let faultEnd: number | null = null;
  let recoverySeconds: number | null = null;
  let newTaskSeconds: number | null = null;
  try {
    const figures = await inject();
    if (figures !== null && typeof figures === "object") own = figures as Record<string, unknown>;
    faultEnd = Date.now();
    mark("faultEnd");
    const atEnd = await observer.head();
    recoverySeconds = await observer.readModelsCurrent(atEnd);
    mark("current");
    // New work goes through: a task is created after the fault's end (it must then finish like the others).
    const createdAfter = async () => (await observer.head(), observer.createdAfter(atEnd));
    await until("a task created after the fault", createdAfter, 30_000, 50);
    newTaskSeconds = (Date.now() - faultEnd) / 1000;
    mark("newTask");
  } finally {
    const window = load.between(faultStart, Date.now());
    await load.stop();
    mark("stopped");
    const settled = await observer.settle(since, 60_000, load.created);
    mark("settled");
    if (process.env.FAULTS_DEBUG) console.log(`FAULT-PHASES ${JSON.stringify({ case: name, ...phases, ...settled.phases })}`);
    printFigures({
      case: name,
      faultSeconds: faultEnd === null ? null : round((faultEnd - faultStart) / 1000),
      inFlightAtFault,
      ...own,
      tasks: settled.tasks,
      tasksLost: settled.tasksLost,
      duplicated: settled.duplicated,
      chargesWrong: settled.chargesWrong,
      slotsHeldByFinished: settled.slotsHeldByFinished,
      recoverySeconds: recoverySeconds === null ? null : round(recoverySeconds),
      newTaskSeconds: newTaskSeconds === null ? null : round(newTaskSeconds),
      settledSeconds: round(settled.settledSeconds),
      requests: window.requests,
      fivexx: window.fivexx,
      ...(window.fivexx > 0 ? { fivexxBy: window.fivexxBy } : {}),
      noAnswer: window.failed,
    });
    observer.expectSound(settled);
  }
}

const round = (seconds: number) => Math.round(seconds * 100) / 100;
