import { isOneOf, type RecordedEvent } from "../core/event.ts";
import type { Identity, UserEvent } from "../accounts/events.ts";

type HoldingEvent = Extract<UserEvent, { type: "UserRegistered" | "ProfileUpdated" | "IdentityLinked" | "AvatarChanged" }>;
const isHoldingEvent = isOneOf<HoldingEvent>(["UserRegistered", "ProfileUpdated", "IdentityLinked", "AvatarChanged"]);

/**
 * What an account holds outside its own stream, which its erasure gives up: the claim on its email address and on each
 * identity it signs in with (so they are free for a new account), and every avatar it uploaded (blobs no event
 * deletes). Folded from the account's events, not its state, so that an erasure that stopped after `AccountErased`
 * finds them still when it runs again; its data key is destroyed last, after them.
 */
export type AccountHoldings = { email: string | null; identities: Identity[]; avatarKeys: string[] };

export function holdingsOf(events: readonly RecordedEvent[]): AccountHoldings {
  const holdings: AccountHoldings = { email: null, identities: [], avatarKeys: [] };
  for (const event of events.filter(isHoldingEvent)) {
    switch (event.type) {
      case "UserRegistered":
        holdings.email = event.data.email;
        if (event.data.identity) holdings.identities.push(event.data.identity);
        break;
      case "ProfileUpdated":
        holdings.email = event.data.email ?? holdings.email;
        break;
      case "IdentityLinked":
        holdings.identities.push(event.data.identity);
        break;
      case "AvatarChanged":
        holdings.avatarKeys.push(event.data.key);
        break;
    }
  }
  return holdings;
}
