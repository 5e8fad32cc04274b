import { handle, type CommandContext, type CommandResult } from "../core/command-handler.ts";
import type { DomainEvent, StreamModel } from "../core/decider.ts";
import type { EventStore } from "../core/event-store.ts";
import type { RecordedEvent } from "../core/event.ts";
import { loadState, type LoadedState } from "../core/state-cache.ts";
import { userDecider, type UserCommand, type UserState } from "./decider.ts";
import { userStream, type UserEvent } from "./events.ts";

export { userIdOf } from "./events.ts";

export type { UserCommand, UserState } from "./decider.ts";

export type AccountCommandResult = CommandResult<UserState, UserEvent>;

/**
 * The one way to change an account (`user-<id>`) from outside the accounts capability: billing, notifications and
 * transcription run their commands here, so the stream's name and its decider stay inside accounts.
 */
export class AccountCommands {
  constructor(private readonly store: EventStore) {}

  run(userId: number, command: UserCommand, context: CommandContext): Promise<AccountCommandResult> {
    return handle(this.store, userStream(userId), userDecider, (state) => userDecider.decide(command, state), context);
  }

  /** Decides on the account's own state with a decision another capability makes (src/erasure's): the accounts' decider still folds it. */
  decide(userId: number, decision: (state: UserState) => UserEvent[], context: CommandContext): Promise<AccountCommandResult> {
    return handle(this.store, userStream(userId), userDecider, decision, context);
  }

  /**
   * Decides with another capability's model kept on the account's stream: tasks' admission and folders live there so
   * that a limit, a charge and the balance are decided on one revision. The stream's name stays here.
   */
  decideOnAccount<State, Event extends DomainEvent>(
    userId: number,
    model: StreamModel<State, Event>,
    decision: (state: State, revision: number) => Event[],
    context: CommandContext,
  ): Promise<CommandResult<State, Event>> {
    return handle(this.store, userStream(userId), model, decision, context);
  }

  /** The account's stream folded with another capability's model (see decideOnAccount). */
  loadOnAccount<State, Event extends DomainEvent>(userId: number, model: StreamModel<State, Event>): Promise<LoadedState<State>> {
    return loadState(this.store, userStream(userId), model);
  }

  /** The account's current state (its plan and balance ledger among it), folded to the revision given. */
  state(userId: number): Promise<LoadedState<UserState>> {
    return loadState(this.store, userStream(userId), userDecider);
  }

  /** Every event of the account's own stream, in order (what an erasure finds the account's holdings in). */
  history(userId: number): Promise<RecordedEvent[]> {
    return this.store.readStream(userStream(userId));
  }

  /** Whether anything was ever appended to the account: a claim left by a registration that died before it is not. */
  async exists(userId: number): Promise<boolean> {
    return (await this.store.readStream(userStream(userId), { maxCount: 1 })).length > 0;
  }
}
