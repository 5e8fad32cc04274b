import type { Recorded } from "../core/event.ts";
import type { Projection, ProjectedDocument } from "../core/projection.ts";
import { positionGuarded } from "../core/projection.ts";
import { userEventTypes, userIdOfStream, type UserEvent } from "./events.ts";
import { emptyLedger, evolveLedger, type BalanceLedger } from "./balance.ts";
import { normalizeEmail } from "./claims.ts";
import type { BillingInterval, PlanKey } from "./plans.ts";

/** The `users` read model: profile, plan and balance ledger of each account (spec 2.4 is shaped from it). */
export type UserFields = {
  id: number;
  name: string;
  email: string;
  /** Lower-cased email, for login lookups. */
  emailKey: string;
  passwordHash: string | null;
  avatar: { key: string; contentType: string } | null;
  plan: PlanKey;
  interval: BillingInterval;
  ledger: BalanceLedger;
  registeredAt: string;
  updatedAt: string;
};

export type UserDocument = ProjectedDocument & UserFields;
type Fields = UserFields;

function evolveUser(doc: Fields | null, event: Recorded<UserEvent>): Fields | null {
  if (event.type === "UserRegistered") {
    const { userId, name, email, passwordHash, registeredAt } = event.data;
    return {
      id: userId,
      name,
      email,
      emailKey: normalizeEmail(email),
      passwordHash,
      avatar: null,
      plan: "free",
      interval: "none",
      ledger: emptyLedger,
      registeredAt,
      updatedAt: registeredAt,
    };
  }
  if (doc === null) return null;
  const touched = { ...doc, updatedAt: event.time };
  switch (event.type) {
    case "ProfileUpdated":
      return {
        ...touched,
        name: event.data.name ?? doc.name,
        email: event.data.email ?? doc.email,
        emailKey: normalizeEmail(event.data.email ?? doc.email),
      };
    case "AvatarChanged":
      return { ...touched, avatar: { key: event.data.key, contentType: event.data.contentType } };
    case "PlanChanged":
      return { ...touched, plan: event.data.plan, interval: event.data.interval };
    case "AllowanceGranted":
    case "SecondsToppedUp":
    case "SecondsCharged":
      return { ...touched, ledger: evolveLedger(doc.ledger, event) };
    // Forgotten: its ledger's amounts stay in the log, without a profile to name them.
    case "AccountErased":
      return null;
    default:
      return doc;
  }
}

export const usersProjection: Projection<UserEvent> = {
  name: "users",
  collections: ["users"],
  eventTypes: userEventTypes,
  async setup(db) {
    await db.collection("users").createIndex({ emailKey: 1 });
    // The monthly allowance job looks for ledgers of past months every few minutes: without this, a scan of every user.
    await db.collection("users").createIndex({ "ledger.period": 1 });
  },
  apply: positionGuarded<UserFields, UserEvent>({
    collection: "users",
    documentId: (event) => {
      const id = userIdOfStream(event.streamName);
      return id === null ? null : String(id);
    },
    evolve: evolveUser,
  }),
};
