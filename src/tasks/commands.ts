import { handle, type CommandContext, type CommandResult } from "../core/command-handler.ts";
import { fold } from "../core/decider.ts";
import type { RecordedEvent } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { loadState, type LoadedState } from "../core/state-cache.ts";
import { taskDecider, type TaskCommand, type TaskState } from "./decider.ts";
import { isTaskEvent, taskStream, type TaskEvent } from "./events.ts";
import { taskVersion } from "./decider.ts";
import type { RevisionCondition } from "../http/if-match.ts";

export type { TaskCommand, TaskState } from "./decider.ts";
export { isScribingAttempt } from "./decider.ts";
export { isTaskEvent, taskIdOf } from "./events.ts";

export type TaskCommandResult = CommandResult<TaskState, TaskEvent>;

/** What a caller decides on the task's current state and revision: the commands to run in turn, or none. */
export type TaskDecision = (state: TaskState, revision: number) => TaskCommand | readonly TaskCommand[] | null;

/** A decision made now and appended later, after work a refused command must not cause (a retry's slot is taken between). */
export type PreparedTaskCommand = { events: readonly TaskEvent[]; append(context: CommandContext): Promise<TaskCommandResult> };

/** The events of `commands`, each decided on the state the ones before it left: several changes as one. */
export function decideInTurn(commands: readonly TaskCommand[], state: TaskState): TaskEvent[] {
  const events: TaskEvent[] = [];
  let current = state;
  for (const command of commands) {
    const decided = taskDecider.decide(command, current);
    events.push(...decided);
    current = decided.reduce(taskDecider.evolve, current);
  }
  return events;
}

const asList = (decided: TaskCommand | readonly TaskCommand[] | null): readonly TaskCommand[] =>
  decided === null ? [] : "type" in decided ? [decided] : decided;

/** A task's state folded from its stored events (all of them, or those up to an event a worker was handed). */
export const taskStateOf = (events: readonly RecordedEvent[]): TaskState => fold(taskDecider, events.filter(isTaskEvent));

/**
 * The one way to change a task: every capability and worker writes `task-<id>` through these, so the stream's
 * name and its decider stay inside the tasks capability. Each call is one append (or none when nothing changes).
 */
export class TaskCommands {
  constructor(private readonly store: EventStore) {}

  /** Runs the commands in turn on one state and appends their events at once; a conflict decides them again. */
  run(taskId: number, commands: TaskCommand | readonly TaskCommand[], context: CommandContext): Promise<TaskCommandResult> {
    return this.decide(taskId, () => commands, context);
  }

  /** Runs `command` and, only when it changes the task, `then` after it: one append, or none. */
  runThen(taskId: number, command: TaskCommand, then: readonly TaskCommand[], context: CommandContext): Promise<TaskCommandResult> {
    return this.decide(taskId, (state) => (then.length > 0 && decideInTurn([command], state).length > 0 ? [command, ...then] : command), context);
  }

  /**
   * Chooses the commands on the state they are decided on (it may throw to refuse, as a request's If-Match does):
   * run again on a retry after a conflict, so it must be pure.
   */
  decide(taskId: number, decision: TaskDecision, context: CommandContext): Promise<TaskCommandResult> {
    return handle(this.store, taskStream(taskId), taskDecider, (state, revision) => decideInTurn(asList(decision(state, revision)), state), context);
  }

  /**
   * Decides now, on the current state (refusing here, before the caller's work), and appends on `append`; the
   * commands are decided again only when the task changed in between. `condition` sees each version decided on.
   */
  async prepare(taskId: number, commands: TaskCommand | readonly TaskCommand[], condition?: RevisionCondition): Promise<PreparedTaskCommand> {
    const decide = (state: TaskState, revision: number) => {
      condition?.(taskVersion(state, revision));
      return decideInTurn(asList(commands), state);
    };
    const loaded = await this.state(taskId);
    const events = decide(loaded.state, loaded.revision);
    const decision = (state: TaskState, revision: number) => (revision === loaded.revision ? events : decide(state, revision));
    return { events, append: (context) => handle(this.store, taskStream(taskId), taskDecider, decision, context) };
  }

  /** The task's current state and the revision it was folded to (-1 before the task exists). */
  state(taskId: number): Promise<LoadedState<TaskState>> {
    return loadState(this.store, taskStream(taskId), taskDecider);
  }

  /** The task's stored events, for what the state does not keep (when things happened, what a worker was handed). */
  events(taskId: number, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]> {
    return this.store.readStream(taskStream(taskId), options);
  }
}
