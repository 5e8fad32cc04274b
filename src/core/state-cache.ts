import type { EventStore } from "./event-store.ts";
import type { DomainEvent, StreamModel } from "./decider.ts";
import { decodeState, encodeState } from "./state-codec.ts";
import { logger } from "../logging/logger.ts";

const log = logger("command-handler");

/** A stream's folded state as of `revision` (-1: the stream does not exist yet). */
export type LoadedState<State> = { state: State; revision: number };

/** A decider's folded state saved at `revision`, whose event there had id `eventId`. */
export type Snapshot = { revision: number; eventId: string; state: unknown };

export interface SnapshotStore {
  load(key: string): Promise<Snapshot | null>;
  save(key: string, snapshot: Snapshot): Promise<void>;
}

type Entry = { state: unknown; revision: number; eventId: string | null; savedRevision: number };

export type StateCacheOptions = {
  /** Streams kept folded in this process; the least recently used are forgotten first. */
  maxEntries?: number;
  snapshots?: SnapshotStore | null;
  /** A snapshot is saved once the stream has grown by this many events since the last one. */
  snapshotEvery?: number;
};

const deciderIds = new WeakMap<object, number>();
let deciderCount = 0;
const deciderId = (decider: object) => {
  let id = deciderIds.get(decider);
  if (id === undefined) deciderIds.set(decider, (id = ++deciderCount));
  return id;
};

const entryKey = (streamName: string, decider: object) => `${deciderId(decider)}:${streamName}`;

type Snapshotted = { snapshot?: { name: string; version: number } };

/**
 * Makes a command's cost independent of its stream's length. Each process keeps the folded state of
 * the streams it decided on lately and reads only the events appended after it (by anyone: other
 * processes included, so the state is never stale when a decision is made; the expected revision on
 * append settles any race). A stream not kept here starts from its newest snapshot, when its decider
 * is snapshotted, and from the beginning otherwise.
 */
export class StateCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly snapshotEvery: number;

  constructor(
    private readonly store: EventStore,
    private readonly options: StateCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.snapshotEvery = options.snapshotEvery ?? 200;
  }

  useSnapshots(snapshots: SnapshotStore | null): void {
    this.options.snapshots = snapshots;
  }

  async load<State, Event extends DomainEvent>(streamName: string, decider: StreamModel<State, Event>): Promise<LoadedState<State>> {
    const key = entryKey(streamName, decider);
    const entry = this.entries.get(key) ??
      (await this.fromSnapshot(streamName, decider)) ?? { state: decider.initialState(), revision: -1, eventId: null, savedRevision: -1 };
    const newer = await this.store.readStream(streamName, { fromRevision: entry.revision + 1 });
    let state = entry.state as State;
    // A stream holds only what its deciders appended (upcast on read), and a model on a shared stream (`user-<id>`)
    // skips the others' events by type: every stored event is folded, the model taken as one over any event.
    const model: StreamModel<State, DomainEvent> = decider;
    for (const event of newer) state = model.evolve(state, event);
    const last = newer.at(-1);
    const current: Entry = last ? { ...entry, state, revision: last.revision, eventId: last.id } : entry;
    this.keep(key, current);
    await this.maybeSnapshot(streamName, decider, current);
    return { state, revision: current.revision };
  }

  /** Records the state a command produced by appending up to `revision` (its last event's id `eventId`). */
  remember<State, Event extends DomainEvent>(streamName: string, decider: StreamModel<State, Event>, state: State, revision: number, eventId: string): void {
    const key = entryKey(streamName, decider);
    this.keep(key, { state, revision, eventId, savedRevision: this.entries.get(key)?.savedRevision ?? -1 });
  }

  private keep(key: string, entry: Entry): void {
    const known = this.entries.get(key);
    // Two loads of one stream may overlap: the one that read further wins.
    if (known && known.revision > entry.revision) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  private snapshotKey(streamName: string, decider: Snapshotted): string | null {
    return decider.snapshot && this.options.snapshots ? `${decider.snapshot.name}@${decider.snapshot.version}:${streamName}` : null;
  }

  private async fromSnapshot<State, Event extends DomainEvent>(streamName: string, decider: StreamModel<State, Event>): Promise<Entry | null> {
    const key = this.snapshotKey(streamName, decider);
    if (key === null) return null;
    const snapshot = await this.options.snapshots!.load(key);
    if (!snapshot) return null;
    // The event the snapshot was taken at must still be there with the same id: a log rebuilt or
    // replaced under the same DATA_DIR makes a snapshot of another history, which is then ignored.
    const [atSnapshot] = await this.store.readStream(streamName, { fromRevision: snapshot.revision, maxCount: 1 });
    if (!atSnapshot || atSnapshot.id !== snapshot.eventId) return null;
    return { state: decodeState(snapshot.state), revision: snapshot.revision, eventId: snapshot.eventId, savedRevision: snapshot.revision };
  }

  private async maybeSnapshot<State, Event extends DomainEvent>(streamName: string, decider: StreamModel<State, Event>, entry: Entry): Promise<void> {
    const key = this.snapshotKey(streamName, decider);
    if (key === null || entry.eventId === null || entry.revision - entry.savedRevision < this.snapshotEvery) return;
    entry.savedRevision = entry.revision;
    try {
      await this.options.snapshots!.save(key, { revision: entry.revision, eventId: entry.eventId, state: encodeState(entry.state) });
    } catch (error) {
      // A snapshot is only a shortcut: a failed save costs a longer read later, never a wrong decision.
      log.warn({ stream: streamName, err: error }, "snapshot not saved");
    }
  }
}

const caches = new WeakMap<EventStore, StateCache>();

/** The state cache of an event store (one per store object, made on first use without snapshots). */
export function stateCacheOf(store: EventStore): StateCache {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new StateCache(store)));
  return cache;
}

/** Folds a stream with a decider, reading only what this process has not folded yet. */
export function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamName: string,
  decider: StreamModel<State, Event>,
): Promise<LoadedState<State>> {
  return stateCacheOf(store).load(streamName, decider);
}
