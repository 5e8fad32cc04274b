import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { deadLetterDecider, type DeadLetterCommand } from "./decider.ts";
import { deadLetterStream, isDeadLetterId, type DeadLetterEvent } from "./events.ts";
import { openDeadLetters, type DeadLetterDocument } from "./dead-letters-projection.ts";

/**
 * The operator's use cases (`bun run admin dead-letters`) and the redrive worker's. Listing reads the `dead_letters`
 * read model; retry, drop and resolve are commands on the dead letter's stream. A retry only records the request:
 * the `dead-letter-redrive` worker, fed by the relay like every worker, runs the handler again wherever the workers
 * run, so it works the same when the bus lives inside the server (`npm start`) and on NATS.
 */
export class DeadLetters {
  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections = async () => {},
    private readonly now: () => Date = () => new Date(),
  ) {}

  open(): Promise<DeadLetterDocument[]> {
    return openDeadLetters(this.db);
  }

  async retry(id: string, metadata: EventMetadata): Promise<void> {
    await this.run(id, { type: "RetryDeadLetter", now: this.now().toISOString() }, metadata);
  }

  /** Every open one; one that changed meanwhile (another operator, a late failure) is left out. Resolves to those retried. */
  async retryAll(metadata: EventMetadata): Promise<DeadLetterDocument[]> {
    const retried: DeadLetterDocument[] = [];
    for (const letter of await this.open()) {
      try {
        await this.retry(letter.id, metadata);
        retried.push(letter);
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
      }
    }
    return retried;
  }

  async drop(id: string, metadata: EventMetadata): Promise<void> {
    await this.run(id, { type: "DropDeadLetter", now: this.now().toISOString() }, metadata);
  }

  /** The redrive worker's: its retry was handled. */
  async resolve(id: string, metadata: EventMetadata): Promise<void> {
    await this.run(id, { type: "ResolveDeadLetter", now: this.now().toISOString() }, metadata);
  }

  /** Waits for the read model, so a `list` right after shows the change. */
  private async run(id: string, command: DeadLetterCommand, metadata: EventMetadata): Promise<DeadLetterEvent[]> {
    if (!isDeadLetterId(id)) throw new NotFoundError(`No dead letter with id ${id}.`);
    try {
      const result = await handle(this.store, deadLetterStream(id), deadLetterDecider, (state) => deadLetterDecider.decide(command, state), { metadata });
      if (result.position !== null) await this.waitFor(result.position, ["dead_letters"]);
      return result.events;
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError(`No dead letter with id ${id}.`);
      throw error;
    }
  }
}
