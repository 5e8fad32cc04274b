import { userEventTypes, type UserEvent } from "./accounts/events.ts";
import type { ClaimEvent } from "./accounts/claims.ts";
import { admissionEventTypes, type AdmissionEvent } from "./tasks/admission.ts";
import { taskEventTypes, type TaskEvent } from "./tasks/events.ts";
import { folderEventTypes, type FolderEvent } from "./folders/events.ts";
import { uploadEventTypes, type UploadEvent } from "./uploads/events.ts";
import type { SequenceEvent } from "./core/sequence.ts";
import type { TokenLifetimeEvent } from "./accounts/token-lifetimes.ts";
import { webhookEndpointEventTypes, webhookMessageEventTypes, type WebhookEndpointEvent, type WebhookMessageEvent } from "./webhooks/events.ts";
import { deadLetterEventTypes, type DeadLetterEvent } from "./dead-letters/events.ts";
import { retentionEventTypes, type RetentionEvent } from "./retention/events.ts";
import type { EventMetadata } from "./core/event.ts";

/**
 * Every event the service stores, in the shapes it is read in (older shapes are upcast on read): the
 * types the event catalogue (clients/events/scribe-events.schema.json, `npm run catalogue`) is generated
 * from, so the catalogue cannot drift from the code.
 */
export type StoredEvent =
  | UserEvent
  | AdmissionEvent
  | FolderEvent
  | TaskEvent
  | UploadEvent
  | ClaimEvent
  | SequenceEvent
  | TokenLifetimeEvent
  | WebhookEndpointEvent
  | WebhookMessageEvent
  | DeadLetterEvent
  | RetentionEvent;

/** Who and what caused an event, on every event. */
export type StoredEventMetadata = EventMetadata;

/** Which streams carry which events: `<category>-<id>`. */
export const eventStreams: Record<string, { stream: string; description: string; types: readonly StoredEvent["type"][] }> = {
  user: {
    stream: "user-<user id>",
    description: "An account: profile, credentials, plan and balance, its folders, its concurrent-task slots and its retention.",
    types: [...userEventTypes, ...folderEventTypes, ...admissionEventTypes, ...retentionEventTypes],
  },
  task: {
    stream: "task-<task id>",
    description: "A task from creation to its end: edits, recognition, summaries, exports.",
    types: taskEventTypes,
  },
  upload: {
    stream: "upload-<upload id>",
    description: "A multipart upload session: signed, then completed, aborted or expired.",
    types: uploadEventTypes,
  },
  email: {
    stream: "email-<SHA-256 of the address>",
    description: "Which account holds an email address (unique per account).",
    types: ["KeyClaimed", "KeyReleased"],
  },
  identity: {
    stream: "identity-<SHA-256 of issuer and subject>",
    description: "Which account a social-login identity belongs to.",
    types: ["KeyClaimed", "KeyReleased"],
  },
  webhooks: {
    stream: "webhooks-<user id>",
    description: "An account's webhook endpoints: created, disabled, deleted (the signing secret is redacted by the export).",
    types: webhookEndpointEventTypes,
  },
  webhookmessage: {
    stream: "webhookmessage-<message id>",
    description: "One webhook message to one endpoint: scheduled, then each attempt, until delivered, given up or cancelled.",
    types: webhookMessageEventTypes,
  },
  deadletter: {
    stream: "deadletter-<id: SHA-256 of worker and event id, 16 hex digits>",
    description: "A message a worker could not handle in all its deliveries, set aside for the operator: retried, resolved or dropped.",
    types: deadLetterEventTypes,
  },
  tokens: {
    stream: "tokens-lifetime",
    description: "One event: when access tokens got a lifetime (TOKEN_TTL_DAYS); tokens issued before count theirs from then.",
    types: ["TokenLifetimesStarted"],
  },
  sequence: {
    stream: "sequence-<name>",
    description: "Integer ids (task, user, folder): each event's revision is the id it reserved.",
    types: ["IdReserved"],
  },
};
