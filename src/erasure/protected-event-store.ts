import type { NewEvent, RecordedEvent } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { decryptField, encryptField, isEncryptedField, scopeOfEncryptedField } from "./field-cipher.ts";
import { fieldAt, personalFieldsOf, withFieldAt, type PersonalField } from "./personal-fields.ts";
import { scopeOfEvent } from "./key-scopes.ts";
import { decryptedFieldsOf, type DecryptedFields } from "./decrypted-fields.ts";
import { UnscopedFields } from "./unscoped-fields.ts";

/** Told of each event read with fields whose key is destroyed (the analyst export marks them): their paths. */
export type ErasedFieldsObserver = (event: RecordedEvent, paths: readonly string[]) => void;

export type ProtectionOptions = {
  /** Whether closing the store closes the key store too (a command-line tool's own one). */
  closesKeys?: boolean;
  onErased?: ErasedFieldsObserver;
  /** Counts (and logs) events stored with personal fields in the clear for want of a scope; one of its own by default. */
  unscoped?: UnscopedFields;
};

type Data = Record<string, unknown>;

/**
 * The event store with personal fields encrypted (crypto-shredding, DESIGN.md "Personal data in an immutable log"):
 * on append the fields personal-fields.ts names are encrypted with their scope's data key (made on first use), and on
 * read (stream, all, subscribed) decrypted; a field whose key is destroyed reads as its erased value, never as the
 * ciphertext or an error, and a field stored in the clear (before this store) reads as it is. Everything else passes
 * through: an event type without personal fields costs one map lookup. Placed under the upcasters, which so see
 * the stored shapes in plaintext.
 */
export function protectEvents(stored: EventStore, keys: DataKeyStore, options: ProtectionOptions = {}): EventStore {
  const cache = decryptedFieldsOf(keys);
  const open = (event: RecordedEvent) => openEvent(event, keys, options.onErased, cache);
  const unscoped = options.unscoped ?? new UnscopedFields();
  const onUnscoped = (streamName: string, type: string) => unscoped.note(streamName, type);
  return {
    async append(streamName, events, appendOptions) {
      // One after the other: the first of a batch makes its scope's key, the others find it.
      const sealed: NewEvent[] = [];
      for (const event of events) sealed.push(await sealEvent(streamName, event, keys, { onUnscoped }));
      return stored.append(streamName, sealed, appendOptions);
    },
    readStream: async (streamName, readOptions) => Promise.all((await stored.readStream(streamName, readOptions)).map(open)),
    readAll: async (readOptions) => Promise.all((await stored.readAll(readOptions)).map(open)),
    subscribe: (subscribeOptions, handler) => stored.subscribe(subscribeOptions, async (event) => handler(await open(event))),
    async close() {
      await stored.close();
      if (options.closesKeys) await keys.close();
    },
  };
}

/**
 * The fields of `fields` that `data` holds (absent and null ones are left as they are). `stored`: the data is as stored
 * (encrypt-events), where a field in the encrypted form is encrypted already; an event being appended holds plaintext
 * only, so a value that merely looks encrypted (a task someone named `enc:v1:...`) is encrypted like any other.
 */
function fieldsToSeal(data: unknown, fields: readonly PersonalField[], stored: boolean): PersonalField[] {
  return fields.filter((field) => {
    const value = fieldAt(data, field.path);
    return value !== undefined && value !== null && !(stored && isEncryptedField(value));
  });
}

/**
 * How an event is sealed: `ownerOfTask` names a task's owner its events do not carry; `stored`: see fieldsToSeal;
 * `onUnscoped` is told of an event left with personal fields in the clear, its stream naming no owner.
 */
export type SealOptions = { ownerOfTask?: number | null; stored?: boolean; onUnscoped?: (streamName: string, eventType: string) => void };

/**
 * The event with its personal fields encrypted under its scope's key. A scope already erased is never given a key
 * again: what an event would add to it is stored as its erased value (a late event about a deleted task).
 */
export async function sealEvent<E extends NewEvent>(streamName: string, event: E, keys: DataKeyStore, options: SealOptions = {}): Promise<E> {
  const fields = personalFieldsOf(event.type);
  if (fields === undefined) return event;
  const present = fieldsToSeal(event.data, fields, options.stored === true);
  if (present.length === 0) return event;
  const owner = scopeOfEvent(streamName, event.data, options.ownerOfTask);
  if (owner === null) {
    options.onUnscoped?.(streamName, event.type);
    return event;
  }
  const key = await keys.keyFor(owner.scope, owner.accountId);
  let data = event.data as Data;
  for (const field of present) {
    const value = fieldAt(data, field.path);
    const sealed = key === null ? field.erased : await encryptField(value, key, { scope: owner.scope, eventType: event.type, path: field.path });
    data = withFieldAt(data, field.path, sealed);
  }
  return { ...event, data };
}

/** The event with its encrypted fields decrypted, or their erased values where the key is gone. */
async function openEvent(event: RecordedEvent, keys: DataKeyStore, onErased?: ErasedFieldsObserver, cache?: DecryptedFields): Promise<RecordedEvent> {
  const fields = personalFieldsOf(event.type);
  if (fields === undefined) return event;
  let data = event.data as Data;
  let erased: string[] | null = null;
  // An event's fields share one scope: its key is looked up once per event, not once per field.
  let found: { scope: string; key: Promise<CryptoKey | "erased" | null> } | null = null;
  const keyOf = (scope: string) => {
    if (found?.scope !== scope) found = { scope, key: keys.find(scope) };
    return found.key;
  };
  for (const field of fields) {
    const value = fieldAt(data, field.path);
    if (!isEncryptedField(value)) continue;
    const plain = await decrypted(value, keyOf, { eventType: event.type, path: field.path }, cache);
    if (plain === undefined) (erased ??= []).push(field.path);
    data = withFieldAt(data, field.path, plain === undefined ? field.erased : plain);
  }
  if (data === event.data) return event;
  if (erased !== null) onErased?.(event, erased);
  return { ...event, data };
}

/** The field's value; undefined when its key is destroyed (or was never kept, or the field was tampered with). */
async function decrypted(
  stored: string,
  keyOf: (scope: string) => Promise<CryptoKey | "erased" | null>,
  place: { eventType: string; path: string },
  cache?: DecryptedFields,
): Promise<unknown> {
  const scope = scopeOfEncryptedField(stored);
  if (scope === null) return undefined;
  const key = await keyOf(scope);
  if (key === null || key === "erased") {
    // Its plaintext, read while the key lived, goes too.
    cache?.forget(scope);
    return undefined;
  }
  // Cached by place too: the same text moved to another event type or field must fail as the cipher would.
  const cached = `${place.eventType}|${place.path}|${stored}`;
  const hit = cache?.get(cached);
  if (hit !== undefined) return hit;
  try {
    const value = await decryptField(stored, key, { scope, ...place });
    cache?.set(scope, cached, value);
    return value;
  } catch {
    return undefined;
  }
}
