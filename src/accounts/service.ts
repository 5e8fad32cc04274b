import type { EventStore } from "../core/event-store.ts";
import { loadState } from "../core/state-cache.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { byUser, type EventMetadata } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { nextId } from "../core/sequence.ts";
import { ForbiddenError, UnauthenticatedError, ValidationFailedError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { UserDocument } from "./users-projection.ts";
import type { CredentialDocument } from "./credentials-projection.ts";
import { plans, type BillingInterval, type PlanKey } from "./plans.ts";
import type { NewCredential, UserCommand } from "./decider.ts";
import { claimDecider, claimOldEnoughToAbandon, emailClaimStream, normalizeEmail } from "./claims.ts";
import type { Identity } from "./events.ts";
import { AccountCommands } from "./commands.ts";
import { CredentialLookup, type Authentication, type Caller, type SecretSource } from "./credential-lookup.ts";
import type { registerBody } from "./schemas.ts";
import { hashPassword, newAccessToken, newApiKey, newSessionSecret, verifyPassword } from "./secrets.ts";
import { TokenLifetimes } from "./token-lifetimes.ts";

export type { Authentication, Caller, SecretSource } from "./credential-lookup.ts";
export type PublicUser = { id: number; name: string; email: string };
export type TokenResponse = { token: string; user: PublicUser };

/**
 * What signing in hands out: a bearer token for API clients (`POST /api/login`, spec 4.1), or a session for
 * the web app, whose secret goes only into an HttpOnly cookie (`POST /api/session`). `expiresAt`: a session's end.
 */
export type CredentialKind = "token" | "session";
export type SignedIn = { kind: CredentialKind; secret: string; user: PublicUser; expiresAt: string | null };

/** How long a web app session lasts from sign-in by default (SESSION_DAYS). */
export const defaultSessionLifetimeMs = 30 * 24 * 60 * 60 * 1000;
/** How long an access token lasts after its last use by default (TOKEN_TTL_DAYS). */
export const defaultTokenLifetimeMs = 30 * 24 * 60 * 60 * 1000;

const emailTaken = "The email has already been taken.";

/**
 * Who registers: the fields of `POST /api/register` (its schema), or what social login learned. `userId`
 * comes in when the caller had to claim something for the account before it exists (social login's identity).
 */
export type Registration = Pick<typeof registerBody.static, "name" | "email"> & {
  password: string | null;
  identity: Identity | null;
  method: "registration" | "social";
  userId?: number;
};

/**
 * Account use cases. Writes go through commands on `user-<id>` (and the email's claim stream for
 * uniqueness); reads come from the `users` and `credentials` read models. Each write waits until
 * the read models show it, so a token works on the very next request.
 */
export class Accounts {
  private readonly commands: AccountCommands;
  private readonly credentials: CredentialLookup;
  private readonly now: () => Date;
  private readonly sessionLifetimeMs: number;
  readonly tokenLifetimes: TokenLifetimes;

  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
    options: { now?: () => Date; sessionLifetimeMs?: number; tokenLifetimeMs?: number } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.sessionLifetimeMs = options.sessionLifetimeMs ?? defaultSessionLifetimeMs;
    this.tokenLifetimes = new TokenLifetimes(store, options.tokenLifetimeMs ?? defaultTokenLifetimeMs, this.now);
    this.commands = new AccountCommands(store);
    this.credentials = new CredentialLookup(db, this.commands, this.tokenLifetimes, this.now);
  }

  private get users() {
    return this.db.collection<UserDocument>("users");
  }

  async findByEmail(email: string): Promise<UserDocument | null> {
    return this.users.findOne({ emailKey: normalizeEmail(email) });
  }

  async findById(userId: number): Promise<UserDocument | null> {
    return this.users.findOne({ _id: String(userId) });
  }

  /** Runs a command on the account's stream and waits for the read models to show it. */
  async execute(userId: number, command: UserCommand, metadata: EventMetadata): Promise<void> {
    const result = await this.commands.run(userId, command, { metadata });
    if (result.position !== null) await this.waitFor(result.position, ["users", "credentials"]);
  }

  /**
   * Claims an email for an account. A claim left by a registration that died before its account
   * existed is taken over once it is old enough (claims.ts); one held by a live account, or a registration
   * still under way, is a 422 on `email`.
   */
  async claimEmail(email: string, userId: number, metadata: EventMetadata): Promise<void> {
    const stream = emailClaimStream(email);
    const { state: claim } = await loadState(this.store, stream, claimDecider);
    const abandoned =
      claim.owner !== null &&
      claim.owner !== userId &&
      (await claimOldEnoughToAbandon(this.store, stream, this.now())) &&
      !(await this.commands.exists(claim.owner));
    const abandonedBy = abandoned ? claim.owner : null;
    await handle(
      this.store,
      stream,
      claimDecider,
      (state) => claimDecider.decide({ type: "Claim", userId, abandonedBy, field: "email", message: emailTaken }, state),
      { metadata },
    );
  }

  async releaseEmail(email: string, userId: number, metadata: EventMetadata): Promise<void> {
    await handle(this.store, emailClaimStream(email), claimDecider, (state) => claimDecider.decide({ type: "Release", userId }, state), { metadata });
  }

  async register(input: Registration, correlationId: string, kind: CredentialKind = "token"): Promise<SignedIn> {
    if (await this.findByEmail(input.email)) throw new ValidationFailedError({ email: [emailTaken] });
    const userId = input.userId ?? (await nextId(this.store, "user", correlationId));
    const metadata = byUser(userId, correlationId);
    const passwordHash = input.password === null ? null : await hashPassword(input.password);
    await this.claimEmail(input.email, userId, metadata);
    const { credential, secret, expiresAt } = this.newCredential(kind);
    await this.execute(
      userId,
      {
        type: "RegisterUser",
        userId,
        name: input.name,
        email: input.email.trim(),
        passwordHash,
        identity: input.identity,
        credential,
        method: input.method,
        now: this.now().toISOString(),
      },
      metadata,
    );
    return { kind, secret, expiresAt, user: { id: userId, name: input.name, email: input.email.trim() } };
  }

  /** The same answer whether the email is unknown or the password wrong, and in about the same time. */
  async login(email: string, password: string, correlationId: string, kind: CredentialKind = "token"): Promise<SignedIn> {
    const user = await this.findByEmail(email);
    const valid = await verifyPassword(password, user?.passwordHash ?? null);
    if (!user || !valid) throw new UnauthenticatedError("These credentials do not match our records.");
    return this.signIn(user, "password", correlationId, kind);
  }

  /** A new token or session for a user who proved who they are (a password, the identity provider). */
  async signIn(user: UserDocument, method: "password" | "social", correlationId: string, kind: CredentialKind = "token"): Promise<SignedIn> {
    const { credential, secret, expiresAt } = this.newCredential(kind);
    const now = this.now().toISOString();
    const command: UserCommand =
      credential.kind === "token"
        ? { type: "IssueAccessToken", tokenId: credential.tokenId, tokenHash: credential.tokenHash, method, now }
        : { type: "StartSession", sessionId: credential.sessionId, sessionHash: credential.sessionHash, expiresAt: credential.expiresAt, method, now };
    await this.execute(user.id, command, byUser(user.id, correlationId));
    return { kind, secret, expiresAt, user: { id: user.id, name: user.name, email: user.email } };
  }

  private newCredential(kind: CredentialKind): { credential: NewCredential; secret: string; expiresAt: string | null } {
    if (kind === "token") {
      const { tokenId, token, tokenHash } = newAccessToken();
      return { credential: { kind, tokenId, tokenHash }, secret: token, expiresAt: null };
    }
    const { sessionId, secret, sessionHash } = newSessionSecret();
    const expiresAt = new Date(this.now().getTime() + this.sessionLifetimeMs).toISOString();
    return { credential: { kind, sessionId, sessionHash, expiresAt }, secret, expiresAt };
  }

  /** Revokes the token, or ends the session, that made the request; API keys are revoked by name in account settings. */
  async logout(caller: Caller, correlationId: string): Promise<void> {
    if (caller.kind === "api_key") throw new ForbiddenError("Log out revokes access tokens; revoke API keys in account settings.");
    const now = this.now().toISOString();
    const command: UserCommand =
      caller.kind === "token" ? { type: "RevokeAccessToken", tokenId: caller.credentialId, now } : { type: "EndSession", sessionId: caller.credentialId, now };
    await this.execute(caller.userId, command, byUser(caller.userId, correlationId));
  }

  /** Who sent this secret (see CredentialLookup): null when it is unknown, revoked, expired, or came the wrong way. */
  authenticate(secret: string, source: SecretSource = "bearer", correlationId?: string): Promise<Authentication | null> {
    return this.credentials.authenticate(secret, source, correlationId);
  }

  async createApiKey(userId: number, name: string, correlationId: string) {
    const { keyId, key, keyHash, prefix } = newApiKey();
    const now = this.now().toISOString();
    await this.execute(userId, { type: "CreateApiKey", keyId, name, keyHash, prefix, now }, byUser(userId, correlationId));
    return { id: keyId, name, key, prefix, created_at: now };
  }

  async listApiKeys(userId: number) {
    const keys = await this.db.collection<CredentialDocument>("credentials").find({ userId, kind: "api_key" }, { sort: { createdAt: -1 } });
    return keys.map((k) => ({ id: k.credentialId, name: k.name ?? "", prefix: k.prefix ?? "", created_at: k.createdAt }));
  }

  /** `metadata`: who revokes it, when not the key's own user (the operator CLI). */
  async revokeApiKey(userId: number, keyId: string, correlationId: string, metadata: EventMetadata = byUser(userId, correlationId)): Promise<void> {
    await this.execute(userId, { type: "RevokeApiKey", keyId, now: this.now().toISOString() }, metadata);
  }

  async changePlan(
    userId: number,
    plan: PlanKey,
    interval: BillingInterval,
    source: "operator" | "checkout",
    reference: string | null,
    metadata: EventMetadata,
  ) {
    await this.execute(userId, { type: "ChangePlan", plan, interval, source, reference, now: this.now().toISOString() }, metadata);
  }

  async topUp(userId: number, seconds: number, source: "operator" | "purchase", metadata: EventMetadata) {
    await this.execute(userId, { type: "TopUpSeconds", seconds, source, now: this.now().toISOString() }, metadata);
  }

  hasApiAccess(user: UserDocument): boolean {
    return plans[user.plan].apiAccess;
  }
}
