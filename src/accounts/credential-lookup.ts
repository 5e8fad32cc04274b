import { byUser } from "../core/event.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { StampedCache } from "../readmodels/stamped-cache.ts";
import { logger } from "../logging/logger.ts";
import type { AccountCommands } from "./commands.ts";
import type { CredentialDocument } from "./credentials-projection.ts";
import { hashSecret } from "./secrets.ts";
import type { TokenLifetimes } from "./token-lifetimes.ts";
import type { UserDocument } from "./users-projection.ts";

export type Caller = { userId: number; kind: "token" | "api_key" | "session"; credentialId: string };
/** `expiresAt`: a session's end, or a token's unless it is used again (TOKEN_TTL_DAYS); null for API keys, which live until revoked. */
export type Authentication = { caller: Caller; user: UserDocument; expiresAt: string | null };
/**
 * What authenticating keeps per secret: when a token's lifetime counts from is worked out on each request, from
 * `lastRecordedMs`, its last recorded use or else its issue (ms).
 */
type KnownCredential = Authentication & { lastRecordedMs: number };

/** Where a request's secret came from: a session secret is taken only from the cookie, a token or key only from the header. */
export type SecretSource = "bearer" | "cookie";

const log = logger("accounts");

/** Who sent a secret: the credential it is, from the `credentials` and `users` read models, kept between requests. */
export class CredentialLookup {
  private readonly known: StampedCache<KnownCredential>;

  constructor(
    private readonly db: DocumentStore,
    private readonly accounts: AccountCommands,
    private readonly tokenLifetimes: TokenLifetimes,
    private readonly now: () => Date,
  ) {
    this.known = new StampedCache(db, ["credentials", "users"], 10_000);
  }

  /**
   * Who sent this secret: null when it is unknown, revoked, expired, or came the wrong way (a session's secret
   * only in its cookie, a token or key only in `Authorization: Bearer`, so neither borrows the other's rate
   * limit). Every authenticated request asks, so the lookup is kept while the credentials and users read models
   * stay as they were; expiry is checked on every request. `correlationId`: the request's, for a token's use (a
   * fresh one when none is given, made only when a use is recorded).
   */
  async authenticate(secret: string, source: SecretSource = "bearer", correlationId?: string): Promise<Authentication | null> {
    const hash = hashSecret(secret);
    const found = await this.known.get(hash, async () => {
      const credential = await this.db.collection<CredentialDocument>("credentials").findOne({ hash });
      if (!credential) return null;
      const user = await this.db.collection<UserDocument>("users").findOne({ _id: String(credential.userId) });
      if (!user) return null;
      return {
        caller: { userId: credential.userId, kind: credential.kind, credentialId: credential.credentialId },
        user,
        expiresAt: credential.expiresAt ?? null,
        lastRecordedMs: Date.parse(credential.usedAt ?? credential.createdAt),
      };
    });
    if (!found || (found.caller.kind === "session") !== (source === "cookie")) return null;
    const { caller, user, expiresAt } = found;
    const now = this.now().getTime();
    if (caller.kind === "token") return this.liveToken(found, now, correlationId);
    if (expiresAt !== null && Date.parse(expiresAt) <= now) return null;
    return { caller, user, expiresAt };
  }

  /** A token within TOKEN_TTL_DAYS of its last recorded use; this use is recorded when the last is a day old. */
  private async liveToken({ caller, user, lastRecordedMs }: KnownCredential, now: number, correlationId: string | undefined): Promise<Authentication | null> {
    const lifetimes = this.tokenLifetimes;
    let from = await lifetimes.countsFrom(caller.credentialId, lastRecordedMs);
    if (now >= from + lifetimes.lifetimeMs) return null;
    if (lifetimes.claimUse(caller.credentialId, from, now)) {
      await this.recordTokenUse(caller, now, correlationId ?? crypto.randomUUID());
      from = now;
    }
    return { caller, user, expiresAt: lifetimes.endText(from) };
  }

  /** Appends AccessTokenUsed; the request does not wait for the read models, and a failure only means a later request records it. */
  private async recordTokenUse(caller: Caller, now: number, correlationId: string): Promise<void> {
    const tokenId = caller.credentialId;
    try {
      await this.accounts.run(
        caller.userId,
        { type: "RecordTokenUse", tokenId, now: new Date(now).toISOString() },
        { metadata: byUser(caller.userId, correlationId) },
      );
    } catch (error) {
      this.tokenLifetimes.forget(tokenId);
      log.warn({ err: error, tokenId }, "could not record an access token's use; the next request tries again");
    }
  }
}
