import type { Projection } from "../core/projection.ts";
import type { Document } from "../readmodels/port.ts";
import { userIdOfStream, type UserEvent } from "./events.ts";

/**
 * The `credentials` read model: one document per live access token or API key, keyed by the secret's
 * SHA-256, so authenticating a request is one lookup by hash. Revoking deletes the document.
 */
export type CredentialDocument = Document & {
  userId: number;
  kind: "token" | "api_key";
  credentialId: string;
  name: string | null;
  prefix: string | null;
  createdAt: string;
};

export const credentialsProjection: Projection = {
  name: "credentials",
  collections: ["credentials"],
  eventTypes: ["AccessTokenIssued", "AccessTokenRevoked", "ApiKeyCreated", "ApiKeyRevoked"],
  async setup(db) {
    await db.collection("credentials").createIndex({ userId: 1, kind: 1 });
    await db.collection("credentials").createIndex({ credentialId: 1 });
  },
  // Idempotent without positions: issuing upserts by hash, revoking deletes by id.
  async apply(recorded, db) {
    const userId = userIdOfStream(recorded.streamName);
    if (userId === null) return;
    const credentials = db.collection<CredentialDocument>("credentials");
    const event = recorded as unknown as UserEvent;
    switch (event.type) {
      case "AccessTokenIssued":
        await credentials.replaceOne(
          { _id: event.data.tokenHash },
          { _id: event.data.tokenHash, userId, kind: "token", credentialId: event.data.tokenId, name: null, prefix: null, createdAt: event.data.issuedAt },
          { upsert: true },
        );
        return;
      case "ApiKeyCreated":
        await credentials.replaceOne(
          { _id: event.data.keyHash },
          {
            _id: event.data.keyHash,
            userId,
            kind: "api_key",
            credentialId: event.data.keyId,
            name: event.data.name,
            prefix: event.data.prefix,
            createdAt: event.data.createdAt,
          },
          { upsert: true },
        );
        return;
      case "AccessTokenRevoked":
        await credentials.deleteMany({ credentialId: event.data.tokenId });
        return;
      case "ApiKeyRevoked":
        await credentials.deleteMany({ credentialId: event.data.keyId });
        return;
    }
  },
};
