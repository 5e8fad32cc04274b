/**
 * Which fields of which stored events are personal (DESIGN.md, "Personal data in an immutable log"): what a person
 * wrote, said or is called, and what names them (file names, URLs, paths made of file names, e-mail addresses). These
 * are stored encrypted (protected-event-store.ts) and read as their erased value once their key is destroyed; every
 * other field is a fact (ids, states, times, durations, charges) that analysts replay.
 *
 * A path names a field of `data` (`name`) or a field of an object in it (`folder.name`); an array is one field, its
 * items encrypted together (`segments`). Paths name fields as stored, before upcasting.
 */

/** What a field reads as once its key is destroyed: never the ciphertext, never an error. */
export type ErasedValue = "[erased]" | readonly never[] | null;

export const erasedText = "[erased]";

export type PersonalField = { path: string; erased: ErasedValue };

const text = (path: string): PersonalField => ({ path, erased: erasedText });
const list = (path: string): PersonalField => ({ path, erased: [] });
const other = (path: string): PersonalField => ({ path, erased: null });

/** Every personal field, by event type; an event type absent here has none. */
const registry: Record<string, readonly PersonalField[]> = {
  // A task's stream (task-<id>): its name, what it was made from and what was said in it.
  TaskCreated: [text("name"), text("file"), text("path"), text("url"), list("vocabulary"), list("segments")],
  TaskRenamed: [text("name")],
  TaskMoved: [text("folder.name")],
  TranscriptEdited: [list("segments")],
  MediaFetched: [text("path"), text("file")],
  SummaryRefreshed: [text("summary"), text("mindmap")],
  TaskFinished: [text("name"), list("segments"), text("summary"), text("mindmap")],
  // A failure's reason can name what the task was made from: "the host X could not be resolved", yt-dlp's words
  // with the video's id or URL, a summariser's error quoting the transcript.
  TaskFailed: [text("name"), text("reason")],
  SummaryFailed: [text("reason")],
  // An account's stream (user-<id>): who the person is, and what they named.
  UserRegistered: [text("name"), text("email"), other("identity")],
  ProfileUpdated: [text("name"), text("email"), text("previousEmail")],
  IdentityLinked: [other("identity")],
  ApiKeyCreated: [text("name")],
  FolderCreated: [text("name")],
  FolderRenamed: [text("name"), text("previousName")],
  FolderDeleted: [text("name")],
  // Uploads (upload-<id>): the file being sent, and the task it becomes.
  UploadSigned: [text("key"), text("fileName")],
  UploadCompleted: [text("name"), text("file"), list("vocabulary")],
  // Webhooks: where an account's notices go, and what they said about its tasks.
  WebhookEndpointCreated: [text("url")],
  // Why an attempt failed or a message was given up names the endpoint's host (a refused address, a TLS error).
  WebhookEndpointDisabled: [text("url"), text("reason")],
  WebhookMessageScheduled: [text("payload")],
  WebhookAttemptFailed: [text("error")],
  WebhookMessageCancelled: [text("reason")],
  // A dead letter names the task it was about, and its error may quote what the worker read (a path, a host).
  MessageDeadLettered: [text("task.name"), text("error")],
};

/** The personal fields of events of `type`; undefined when it has none (the common case: one map lookup). */
export function personalFieldsOf(type: string): readonly PersonalField[] | undefined {
  return Object.hasOwn(registry, type) ? registry[type] : undefined;
}

/** Every event type with personal fields and their paths: what the event catalogue documents. */
export function personalFieldsByType(): Readonly<Record<string, readonly string[]>> {
  return Object.fromEntries(Object.entries(registry).map(([type, fields]) => [type, fields.map((field) => field.path)]));
}

type Data = Record<string, unknown>;
const isObject = (value: unknown): value is Data => value !== null && typeof value === "object" && !Array.isArray(value);

/** The value at `path` in `data`; undefined when it or an object on the way is absent. */
export function fieldAt(data: unknown, path: string): unknown {
  let current: unknown = data;
  for (const part of path.split(".")) {
    if (!isObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/**
 * A copy of `data` with `value` at `path` (which `fieldAt` found): the objects on the way are copied, never changed,
 * since the event read or appended may be shared (the state cache holds what it folded).
 */
export function withFieldAt(data: Data, path: string, value: unknown): Data {
  const dot = path.indexOf(".");
  if (dot === -1) return { ...data, [path]: value };
  const head = path.slice(0, dot);
  const inner = data[head];
  return isObject(inner) ? { ...data, [head]: withFieldAt(inner, path.slice(dot + 1), value) } : data;
}
