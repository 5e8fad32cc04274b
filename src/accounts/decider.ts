import { assertNever, type Decider } from "../core/decider.ts";
import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import { periodOf, plans, type BillingInterval, type PlanKey } from "./plans.ts";
import { emptyLedger, evolveLedger, type BalanceLedger } from "./balance.ts";
import { userEventTypes, type Identity, type SignInMethod, type UserEvent } from "./events.ts";
import { normalizeEmail } from "./claims.ts";

export type UserCommand =
  | {
      type: "RegisterUser";
      userId: number;
      name: string;
      email: string;
      passwordHash: string | null;
      identity: Identity | null;
      /** The first credential, handed out with the account: a token (POST /api/register) or a session (the web app). */
      credential: NewCredential;
      method: "registration" | "social";
      now: string;
    }
  | { type: "IssueAccessToken"; tokenId: string; tokenHash: string; method: "password" | "social"; now: string }
  | { type: "RevokeAccessToken"; tokenId: string; now: string }
  | { type: "RecordTokenUse"; tokenId: string; now: string }
  | { type: "StartSession"; sessionId: string; sessionHash: string; expiresAt: string; method: "password" | "social"; now: string }
  | { type: "EndSession"; sessionId: string; now: string }
  | { type: "UpdateProfile"; name?: string; email?: string; now: string }
  | { type: "ChangeAvatar"; key: string; contentType: string; now: string }
  | { type: "LinkIdentity"; identity: Identity }
  | { type: "ChangePlan"; plan: PlanKey; interval: BillingInterval; source: "operator" | "checkout"; reference: string | null; now: string }
  | { type: "GrantMonthlyAllowance"; now: string }
  | { type: "TopUpSeconds"; seconds: number; source: "operator" | "purchase"; now: string }
  | { type: "CreateApiKey"; keyId: string; name: string; keyHash: string; prefix: string; now: string }
  | { type: "RevokeApiKey"; keyId: string; now: string }
  | { type: "MarkNotificationsRead"; now: string };

/** A bearer token for API clients, or a session for the web app (its secret in a cookie). */
export type NewCredential =
  | { kind: "token"; tokenId: string; tokenHash: string }
  | { kind: "session"; sessionId: string; sessionHash: string; expiresAt: string };

function issued(credential: NewCredential, method: SignInMethod, now: string): UserEvent {
  if (credential.kind === "token")
    return { type: "AccessTokenIssued", data: { tokenId: credential.tokenId, tokenHash: credential.tokenHash, method, issuedAt: now } };
  const { sessionId, sessionHash, expiresAt } = credential;
  return { type: "SessionStarted", data: { sessionId, sessionHash, method, startedAt: now, expiresAt } };
}

export type UserState =
  | { status: "none" }
  | {
      status: "registered";
      userId: number;
      email: string;
      plan: PlanKey;
      interval: BillingInterval;
      ledger: BalanceLedger;
      /** Live API keys only: a user makes few, and revoked ones leave the state. */
      apiKeys: ReadonlySet<string>;
      identities: readonly Identity[];
      /** Checkout references already turned into a plan change: a repeated payment webhook changes nothing. */
      checkoutReferences: ReadonlySet<string>;
    }
  | { status: "erased" }; // src/erasure: refused as an unknown account is, and never registered again

type Registered = Extract<UserState, { status: "registered" }>;

function registered(state: UserState): Registered {
  if (state.status !== "registered") throw new NotFoundError("User not found.");
  return state;
}

const accountEventTypes: ReadonlySet<string> = new Set(userEventTypes);

const withItem = <T>(set: ReadonlySet<T>, item: T) => new Set([...set, item]);
const withoutItem = <T>(set: ReadonlySet<T>, item: T) => new Set([...set].filter((x) => x !== item));

/** The commands that hand out or take back a way in: access tokens, sessions, API keys. */
type CredentialCommand = Extract<
  UserCommand,
  { type: "IssueAccessToken" | "RevokeAccessToken" | "RecordTokenUse" | "StartSession" | "EndSession" | "CreateApiKey" | "RevokeApiKey" }
>;

const credentialCommandTypes: Record<CredentialCommand["type"], true> = {
  IssueAccessToken: true,
  RevokeAccessToken: true,
  RecordTokenUse: true,
  StartSession: true,
  EndSession: true,
  CreateApiKey: true,
  RevokeApiKey: true,
};
const isCredentialCommand = (command: UserCommand): command is CredentialCommand => Object.hasOwn(credentialCommandTypes, command.type);

function decideCredential(command: CredentialCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    // Tokens are not folded (a login a day for years would make every command on the account slower):
    // the caller authenticated with the token it revokes, so it is live, and a second revoke is harmless.
    case "IssueAccessToken":
      registered(state);
      return [{ type: "AccessTokenIssued", data: { tokenId: command.tokenId, tokenHash: command.tokenHash, method: command.method, issuedAt: command.now } }];
    case "RevokeAccessToken":
      registered(state);
      return [{ type: "AccessTokenRevoked", data: { tokenId: command.tokenId, revokedAt: command.now } }];
    // The caller has just authenticated with the token, so it is live (tokens are not folded, as above).
    case "RecordTokenUse":
      registered(state);
      return [{ type: "AccessTokenUsed", data: { tokenId: command.tokenId, usedAt: command.now } }];
    // Sessions are not folded either, for the same reason: the caller ends the session it signed in with.
    case "StartSession": {
      registered(state);
      const { sessionId, sessionHash, expiresAt, method, now } = command;
      return [issued({ kind: "session", sessionId, sessionHash, expiresAt }, method, now)];
    }
    case "EndSession":
      registered(state);
      return [{ type: "SessionEnded", data: { sessionId: command.sessionId, endedAt: command.now } }];
    case "CreateApiKey": {
      const user = registered(state);
      if (!plans[user.plan].apiAccess) throw new ForbiddenError("API keys need a Pro, Max or pay-as-you-go plan.");
      const { keyId, name, keyHash, prefix, now } = command;
      return [{ type: "ApiKeyCreated", data: { keyId, name, keyHash, prefix, createdAt: now } }];
    }
    case "RevokeApiKey": {
      const user = registered(state);
      if (!user.apiKeys.has(command.keyId)) throw new NotFoundError("API key not found.");
      return [{ type: "ApiKeyRevoked", data: { keyId: command.keyId, revokedAt: command.now } }];
    }
    default:
      return assertNever(command);
  }
}

/**
 * Profile, credentials, plan and balance of `user-<id>`. Charges are decided by the admission decider
 * (tasks/admission.ts) on the same stream, where a task's slot makes its charge happen once.
 */
export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  snapshot: { name: "account", version: 2 },
  initialState: () => ({ status: "none" }),

  evolve(state, event) {
    // The stream is shared with folders, task admissions and notifications: fold only account facts.
    if (!accountEventTypes.has(event.type)) return state;
    if (event.type === "UserRegistered") {
      const { userId, email, identity } = event.data;
      return {
        status: "registered",
        userId,
        email,
        plan: "free",
        interval: "none",
        ledger: emptyLedger,
        apiKeys: new Set(),
        identities: identity ? [identity] : [],
        checkoutReferences: new Set(),
      };
    }
    if (state.status !== "registered") return state;
    switch (event.type) {
      case "AccessTokenIssued":
      case "AccessTokenRevoked":
      case "AccessTokenUsed":
      case "SessionStarted":
      case "SessionEnded":
        return state;
      case "ProfileUpdated":
        return { ...state, email: event.data.email ?? state.email };
      case "AvatarChanged":
        return state;
      case "IdentityLinked":
        return { ...state, identities: [...state.identities, event.data.identity] };
      case "PlanChanged": {
        const { plan, interval, reference } = event.data;
        return { ...state, plan, interval, checkoutReferences: reference === null ? state.checkoutReferences : withItem(state.checkoutReferences, reference) };
      }
      case "AllowanceGranted":
      case "SecondsToppedUp":
      case "SecondsCharged":
        return { ...state, ledger: evolveLedger(state.ledger, event) };
      case "ApiKeyCreated":
        return { ...state, apiKeys: withItem(state.apiKeys, event.data.keyId) };
      case "ApiKeyRevoked":
        return { ...state, apiKeys: withoutItem(state.apiKeys, event.data.keyId) };
      case "NotificationsRead":
        return state;
      case "AccountErased":
        return { status: "erased" };
      default:
        return assertNever(event);
    }
  },

  decide(command, state): UserEvent[] {
    if (isCredentialCommand(command)) return decideCredential(command, state);
    switch (command.type) {
      case "RegisterUser": {
        if (state.status !== "none") return [];
        const { userId, name, email, passwordHash, identity, credential, method, now } = command;
        return [
          { type: "UserRegistered", data: { userId, name, email, passwordHash, identity, registeredAt: now } },
          { type: "AllowanceGranted", data: { period: periodOf(now), seconds: plans.free.monthlyAllowanceSeconds, reason: "monthly", grantedAt: now } },
          issued(credential, method, now),
        ];
      }
      case "UpdateProfile": {
        if (command.name === undefined && command.email === undefined) return [];
        const user = registered(state);
        const data: Extract<UserEvent, { type: "ProfileUpdated" }>["data"] = { updatedAt: command.now };
        if (command.name !== undefined) data.name = command.name;
        if (command.email !== undefined) data.email = command.email;
        if (command.email !== undefined && normalizeEmail(command.email) !== normalizeEmail(user.email)) data.previousEmail = user.email;
        return [{ type: "ProfileUpdated", data }];
      }
      case "ChangeAvatar":
        registered(state);
        return [{ type: "AvatarChanged", data: { key: command.key, contentType: command.contentType, changedAt: command.now } }];
      case "LinkIdentity": {
        const user = registered(state);
        const known = user.identities.some((i) => i.issuer === command.identity.issuer && i.subject === command.identity.subject);
        return known ? [] : [{ type: "IdentityLinked", data: { identity: command.identity } }];
      }
      case "ChangePlan": {
        const user = registered(state);
        if (user.plan === command.plan && user.interval === command.interval) return [];
        if (command.reference !== null && user.checkoutReferences.has(command.reference)) return [];
        const { plan, interval, source, reference, now } = command;
        return [
          { type: "PlanChanged", data: { plan, interval, previousPlan: user.plan, source, reference, changedAt: now } },
          { type: "AllowanceGranted", data: { period: periodOf(now), seconds: plans[plan].monthlyAllowanceSeconds, reason: "plan_change", grantedAt: now } },
        ];
      }
      case "GrantMonthlyAllowance": {
        const user = registered(state);
        const period = periodOf(command.now);
        if (user.ledger.period >= period) return [];
        return [{ type: "AllowanceGranted", data: { period, seconds: plans[user.plan].monthlyAllowanceSeconds, reason: "monthly", grantedAt: command.now } }];
      }
      case "TopUpSeconds":
        registered(state);
        return [{ type: "SecondsToppedUp", data: { seconds: command.seconds, source: command.source, toppedUpAt: command.now } }];
      case "MarkNotificationsRead":
        // Notifications live only in their read model, so the account records the intent and the
        // projection applies it; always a fact, even when nothing happens to be unread.
        registered(state);
        return [{ type: "NotificationsRead", data: { upTo: command.now } }];
      default:
        return assertNever(command);
    }
  },
};
