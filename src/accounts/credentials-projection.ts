import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import type { RecordedEvent } from "../core/event.ts";
import { userIdOfStream, type UserEvent } from "./events.ts";

type CredentialFields = {
  /** The secret's SHA-256: authenticating a request is one lookup by it (a unique index). */
  hash: string;
  userId: number;
  kind: "token" | "api_key";
  credentialId: string;
  name: string | null;
  prefix: string | null;
  createdAt: string;
};

/**
 * The `credentials` read model: one document per live access token or API key, keyed by its id
 * (`token:<id>`, `api_key:<id>`) so that issuing and revoking fold into the same document, position
 * guarded like every other read model. Revoking deletes it.
 */
export type CredentialDocument = ProjectedDocument & CredentialFields;

const documentId = (recorded: RecordedEvent): string | null => {
  const event = recorded as unknown as UserEvent;
  switch (event.type) {
    case "AccessTokenIssued":
    case "AccessTokenRevoked":
      return `token:${event.data.tokenId}`;
    case "ApiKeyCreated":
    case "ApiKeyRevoked":
      return `api_key:${event.data.keyId}`;
    default:
      return null;
  }
};

function evolve(current: CredentialFields | null, recorded: RecordedEvent): CredentialFields | null {
  const userId = userIdOfStream(recorded.streamName);
  if (userId === null) return current;
  const event = recorded as unknown as UserEvent;
  switch (event.type) {
    case "AccessTokenIssued": {
      const { tokenHash, tokenId, issuedAt } = event.data;
      return { hash: tokenHash, userId, kind: "token", credentialId: tokenId, name: null, prefix: null, createdAt: issuedAt };
    }
    case "ApiKeyCreated": {
      const { keyHash, keyId, name, prefix, createdAt } = event.data;
      return { hash: keyHash, userId, kind: "api_key", credentialId: keyId, name, prefix, createdAt };
    }
    case "AccessTokenRevoked":
    case "ApiKeyRevoked":
      return null;
    default:
      return current;
  }
}

export const credentialsProjection: Projection = {
  name: "credentials",
  // 2: keyed by credential id with a position, the hash a field (was: keyed by hash, no position).
  version: 2,
  collections: ["credentials"],
  eventTypes: ["AccessTokenIssued", "AccessTokenRevoked", "ApiKeyCreated", "ApiKeyRevoked"],
  async setup(db) {
    await db.collection("credentials").createIndex({ hash: 1 }, { unique: true });
    await db.collection("credentials").createIndex({ userId: 1, kind: 1 });
    await db.collection("credentials").createIndex({ credentialId: 1 });
  },
  apply: positionGuarded<CredentialFields>({ collection: "credentials", documentId, evolve }),
};
