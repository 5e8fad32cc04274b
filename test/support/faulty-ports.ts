import type { EventStore } from "../../src/core/event-store.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";
import type { Adapters } from "../../src/adapters.ts";

/** What a port does while a fault is on: fail every call, hang until the fault ends, or answer late. */
export type Fault = { kind: "error" } | { kind: "stall" } | { kind: "latency"; ms: number };

/**
 * A switch for faults in the event store and document store ports, where no EventStoreDB or MongoDB server can be
 * had to stop: `during(fault, ms)` turns it on for a window, as a restart, a failover or a slow disk would.
 */
export class FaultSwitch {
  private fault: Fault | null = null;
  private ended: Promise<void> = Promise.resolve();
  private end: () => void = () => undefined;
  /** Calls refused or held while a fault was on, by port. */
  readonly hits = new Map<string, number>();

  on(fault: Fault): void {
    this.fault = fault;
    this.ended = new Promise((resolve) => (this.end = resolve));
  }

  off(): void {
    this.fault = null;
    this.end();
  }

  async during(fault: Fault, ms: number): Promise<void> {
    this.on(fault);
    await Bun.sleep(ms);
    this.off();
  }

  /** Applied before every call of a wrapped port. */
  async gate(port: string): Promise<void> {
    const fault = this.fault;
    if (!fault) return;
    this.hits.set(port, (this.hits.get(port) ?? 0) + 1);
    if (fault.kind === "error") throw new Error(`${port} unreachable (injected)`);
    if (fault.kind === "stall") await this.ended;
    else await Bun.sleep(fault.ms);
  }
}

export function faultyEventStore(inner: EventStore, faults: FaultSwitch, port = "event store"): EventStore {
  return {
    append: async (...args) => (await faults.gate(port), inner.append(...args)),
    readStream: async (...args) => (await faults.gate(port), inner.readStream(...args)),
    readAll: async (...args) => (await faults.gate(port), inner.readAll(...args)),
    // The feed itself fails too: each delivery passes the gate first.
    subscribe: (options, handler) => inner.subscribe(options, async (event) => (await faults.gate(port), handler(event))),
    close: () => inner.close(),
  };
}

/** Every collection call, and the store's own async calls, pass the gate; `changeStamp` (synchronous) does not. */
export function faultyDocumentStore(inner: DocumentStore, faults: FaultSwitch, port = "read models"): DocumentStore {
  const gated = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver) as unknown;
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          await faults.gate(port);
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  return {
    collection: (name) => gated(inner.collection(name)),
    replaceCollections: async (pairs) => (await faults.gate(port), inner.replaceCollections(pairs)),
    dropCollection: async (name) => (await faults.gate(port), inner.dropCollection(name)),
    changeStamp: (collections) => inner.changeStamp(collections),
    close: () => inner.close(),
  } as DocumentStore;
}

/** The adapters with their event store and document store each behind its own switch. */
export function withFaults(adapters: Adapters, faults: { eventStore: FaultSwitch; documents: FaultSwitch }): Adapters {
  return {
    ...adapters,
    eventStore: faultyEventStore(adapters.eventStore, faults.eventStore),
    documents: faultyDocumentStore(adapters.documents, faults.documents),
  };
}
