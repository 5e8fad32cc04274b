import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import type { Recorded } from "../core/event.ts";
import { userIdOfStream, type UserEvent } from "./events.ts";

type CredentialFields = {
  /** The secret's SHA-256: authenticating a request is one lookup by it (a unique index). */
  hash: string;
  userId: number;
  kind: "token" | "api_key" | "session";
  credentialId: string;
  name: string | null;
  prefix: string | null;
  createdAt: string;
  /** A session's end (ISO time); keys live until revoked, tokens until TOKEN_TTL_DAYS after `usedAt` (both absent). */
  expiresAt?: string;
  /** A token's last recorded use (AccessTokenUsed), from which its lifetime counts; absent until the first one. */
  usedAt?: string;
};

/**
 * The `credentials` read model: one document per live access token, API key or web app session, keyed by
 * its id (`token:<id>`, `api_key:<id>`, `session:<id>`) so that issuing and revoking fold into the same
 * document, position guarded like every other read model. Revoking (signing out) deletes it; an expired
 * session or token stays until then, and authentication refuses it (a session by its `expiresAt`, a token by
 * its `usedAt` or `createdAt` and TOKEN_TTL_DAYS, src/accounts/token-lifetimes.ts).
 */
export type CredentialDocument = ProjectedDocument & CredentialFields;

const credentialEventTypes = [
  "AccessTokenIssued",
  "AccessTokenRevoked",
  "AccessTokenUsed",
  "ApiKeyCreated",
  "ApiKeyRevoked",
  "SessionStarted",
  "SessionEnded",
] as const;
type CredentialEvent = Extract<UserEvent, { type: (typeof credentialEventTypes)[number] }>;

const documentId = (event: Recorded<CredentialEvent>): string => {
  switch (event.type) {
    case "AccessTokenIssued":
    case "AccessTokenRevoked":
    case "AccessTokenUsed":
      return `token:${event.data.tokenId}`;
    case "ApiKeyCreated":
    case "ApiKeyRevoked":
      return `api_key:${event.data.keyId}`;
    case "SessionStarted":
    case "SessionEnded":
      return `session:${event.data.sessionId}`;
  }
};

function evolve(current: CredentialFields | null, event: Recorded<CredentialEvent>): CredentialFields | null {
  const userId = userIdOfStream(event.streamName);
  if (userId === null) return current;
  switch (event.type) {
    case "AccessTokenIssued": {
      const { tokenHash, tokenId, issuedAt } = event.data;
      return { hash: tokenHash, userId, kind: "token", credentialId: tokenId, name: null, prefix: null, createdAt: issuedAt };
    }
    case "AccessTokenUsed":
      // A use recorded after the token was revoked (the two raced) brings nothing back.
      return current === null ? null : { ...current, usedAt: event.data.usedAt };
    case "ApiKeyCreated": {
      const { keyHash, keyId, name, prefix, createdAt } = event.data;
      return { hash: keyHash, userId, kind: "api_key", credentialId: keyId, name, prefix, createdAt };
    }
    case "SessionStarted": {
      const { sessionHash, sessionId, startedAt, expiresAt } = event.data;
      return { hash: sessionHash, userId, kind: "session", credentialId: sessionId, name: null, prefix: null, createdAt: startedAt, expiresAt };
    }
    case "AccessTokenRevoked":
    case "ApiKeyRevoked":
    case "SessionEnded":
      return null;
  }
}

export const credentialsProjection: Projection<CredentialEvent> = {
  name: "credentials",
  // 2: keyed by credential id with a position, the hash a field (was: keyed by hash, no position).
  // 3: a token's last recorded use (`usedAt`).
  version: 3,
  collections: ["credentials"],
  eventTypes: credentialEventTypes,
  async setup(db) {
    await db.collection("credentials").createIndex({ hash: 1 }, { unique: true });
    await db.collection("credentials").createIndex({ userId: 1, kind: 1 });
    await db.collection("credentials").createIndex({ credentialId: 1 });
  },
  apply: positionGuarded<CredentialFields, CredentialEvent>({ collection: "credentials", documentId, evolve }),
};
