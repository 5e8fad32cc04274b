import type { EventStore } from "./event-store.ts";
import type { NewEvent } from "./event.ts";

/** Told about each batch of events once it is stored (the events-appended metric). */
export type AppendObserver = (events: readonly NewEvent[], streamName: string) => void;

/** The store, telling `observers` of every successful append; observers added later are told too. */
export function observingAppends(store: EventStore, observers: ReadonlySet<AppendObserver>): EventStore {
  return {
    append: async (streamName, events, options) => {
      const result = await store.append(streamName, events, options);
      for (const observe of observers) observe(events, streamName);
      return result;
    },
    readStream: (streamName, options) => store.readStream(streamName, options),
    readAll: (options) => store.readAll(options),
    subscribe: (options, handler) => store.subscribe(options, handler),
    close: () => store.close(),
  };
}
