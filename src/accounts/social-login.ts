import { byUser } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { loadState } from "../core/state-cache.ts";
import type { EventMetadata } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { nextId } from "../core/sequence.ts";
import { ConflictError, ValidationFailedError } from "../core/errors.ts";
import { claimDecider, claimOldEnoughToAbandon, identityClaimStream } from "./claims.ts";
import { userStream, type Identity } from "./events.ts";
import type { OidcClaims, OidcClient } from "./oidc-client.ts";
import type { Accounts, CredentialKind, SignedIn } from "./service.ts";

/**
 * `POST /api/auth/social-login`: an authorization code in, an account token out; `POST /api/session/social`:
 * the same sign-in, as a web app session (`kind`).
 */
export interface SocialLogin {
  login(code: string, correlationId: string, kind?: CredentialKind): Promise<SignedIn>;
}

/** What the login needs from the provider: its issuer, and one verified exchange of a code for claims. */
export type CodeExchange = Pick<OidcClient, "issuer" | "exchange">;

type IdentityClaim = { owner: number | null; abandonedBy: number | null };

const maxLength = 255;

/** The address the account will carry: required, and within what registration accepts. */
function emailOf(claims: OidcClaims): string {
  const email = claims.email?.trim() ?? "";
  if (email === "") throw new ValidationFailedError({ email: ["The identity provider did not share an email address; allow the `email` scope."] });
  if (email.length > maxLength || !/^[^\s@]+@[^\s@]+$/.test(email))
    throw new ValidationFailedError({ email: ["The identity provider's email address is not a valid email address."] });
  return email;
}

/**
 * Logs in with the configured OpenID Connect provider. The identity (issuer, subject) is a claim
 * stream of its own, like an email, so it belongs to at most one account and tells us which.
 */
export class OidcSocialLogin implements SocialLogin {
  constructor(
    private readonly accounts: Accounts,
    private readonly store: EventStore,
    private readonly provider: CodeExchange,
  ) {}

  async login(code: string, correlationId: string, kind: CredentialKind = "token"): Promise<SignedIn> {
    // Redeeming the code comes first: until the provider has vouched for it, nothing is written.
    const claims = await this.provider.exchange(code);
    const identity: Identity = { issuer: this.provider.issuer, subject: claims.sub };
    const claim = await this.identityClaim(identity);
    if (claim.owner !== null) return this.signInAs(claim.owner, correlationId, kind);

    const email = emailOf(claims);
    const existing = await this.accounts.findByEmail(email);
    if (existing) {
      // An unverified address proves nothing: whoever controls an account at the provider could
      // type someone else's email there and walk into that person's account here.
      if (!claims.email_verified) {
        throw new ValidationFailedError({
          email: ["An account with this email already exists, and the identity provider has not verified the address. Log in with your password."],
        });
      }
      await this.claimIdentity(identity, existing.id, claim.abandonedBy, correlationId);
      await this.accounts.execute(existing.id, { type: "LinkIdentity", identity }, this.metadata(existing.id, correlationId));
      return this.accounts.signIn(existing, "social", correlationId, kind);
    }

    // Identity claim first, account last: a failure in between leaves only claims whose account never
    // came to be, which the next login takes over (abandonedBy), never an account nobody can reach.
    const userId = await nextId(this.store, "user", correlationId);
    await this.claimIdentity(identity, userId, claim.abandonedBy, correlationId);
    const name = (claims.name ?? email.slice(0, email.lastIndexOf("@"))).slice(0, maxLength);
    return this.accounts.register({ userId, name, email, password: null, identity, method: "social" }, correlationId, kind);
  }

  private async signInAs(userId: number, correlationId: string, kind: CredentialKind): Promise<SignedIn> {
    const user = await this.accounts.findById(userId);
    // Only while a concurrent first login for the same identity is between its write and the read model.
    if (!user) throw new ConflictError("Your account is still being set up. Please sign in again in a moment.");
    return this.accounts.signIn(user, "social", correlationId, kind);
  }

  /** Who holds the identity: a live owner, or (`abandonedBy`) a first login that died before its account existed. */
  private async identityClaim(identity: Identity): Promise<IdentityClaim> {
    const { owner } = (await loadState(this.store, identityClaimStream(identity.issuer, identity.subject), claimDecider)).state;
    if (owner === null) return { owner: null, abandonedBy: null };
    const live = (await this.store.readStream(userStream(owner))).length > 0;
    if (live) return { owner, abandonedBy: null };
    // A first login still between its claim and its account holds it too, until the claim is old enough (claims.ts).
    const abandoned = await claimOldEnoughToAbandon(this.store, identityClaimStream(identity.issuer, identity.subject), new Date());
    return abandoned ? { owner: null, abandonedBy: owner } : { owner, abandonedBy: null };
  }

  private async claimIdentity(identity: Identity, userId: number, abandonedBy: number | null, correlationId: string): Promise<void> {
    await handle(
      this.store,
      identityClaimStream(identity.issuer, identity.subject),
      claimDecider,
      (state) =>
        claimDecider.decide(
          {
            type: "Claim",
            userId,
            abandonedBy,
            field: "code",
            message: "This identity was just linked to another account by a parallel login. Please sign in again.",
          },
          state,
        ),
      { metadata: this.metadata(userId, correlationId) },
    );
  }

  private metadata(userId: number, correlationId: string): EventMetadata {
    return byUser(userId, correlationId);
  }
}
