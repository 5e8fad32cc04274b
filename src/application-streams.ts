import { emailClaimStream, identityClaimStream } from "./accounts/claims.ts";
import { parseStreamName } from "./core/event.ts";
import { userStream } from "./accounts/events.ts";
import { tokenLifetimeStream } from "./accounts/token-lifetimes.ts";
import { deadLetterStream } from "./dead-letters/events.ts";
import { taskStream } from "./tasks/events.ts";
import { uploadStream } from "./uploads/events.ts";
import { webhookEndpointsStream, webhookMessageStream } from "./webhooks/events.ts";

/**
 * The beginnings of every stream this application writes, from each stream's one builder: a shared EventStoreDB
 * sends the relay and the projections only these streams' events (src/eventstore/eventstoredb.ts), and refuses
 * an append to any other, so a stream family missing here fails loudly on its first append instead of never
 * reaching a projection. test/core/application-streams.unit.test.ts finds the builders in the code and checks
 * each is covered.
 */
/** A builder's stream name up to and with its first `-`: the family it names. */
const family = (streamName: string) => `${parseStreamName(streamName).category}-`;

export const applicationStreamPrefixes: readonly string[] = [
  family(userStream(1)),
  family(taskStream(1)),
  family(uploadStream("u")),
  family(webhookEndpointsStream(1)),
  family(webhookMessageStream("m")),
  family(emailClaimStream("a@example.com")),
  family(identityClaimStream("issuer", "subject")),
  family(deadLetterStream("d")),
  tokenLifetimeStream,
  // nextId's streams (src/core/sequence.ts): `sequence-<name>`.
  "sequence-",
];
