import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import { loadState } from "../core/state-cache.ts";
import { pollUntil } from "../core/poll.ts";
import type { Accounts } from "./service.ts";
import type { UserDocument } from "./users-projection.ts";
import type { updateUserBody } from "./schemas.ts";
import { checkAvatar } from "./avatars.ts";
import { claimDecider, emailClaimStream, normalizeEmail } from "./claims.ts";
import type { RetentionSetting } from "./user-view.ts";

/** What `PUT /api/user` takes: its schema, validated before it gets here. */
export type ProfileInput = typeof updateUserBody.static;

/** How long a profile change waits for the email-claims worker to free the address it gave up. */
const releaseWaitMs = 5_000;

/**
 * Name, email and avatar (spec 4.5). Everything is checked before anything changes, so a bad avatar
 * leaves the name as it was. A new address is claimed first (422 when another account holds it); the
 * address given up is released by the email-claims worker reacting to `ProfileUpdated`, and the request
 * waits for that, so the old address is free for someone else once this answers.
 */
export class Profiles {
  constructor(
    private readonly accounts: Accounts,
    private readonly store: EventStore,
    private readonly blobs: BlobStore,
    private readonly retention: RetentionSetting,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async update(userId: number, input: ProfileInput, metadata: EventMetadata): Promise<UserDocument> {
    const current = (await this.accounts.findById(userId))!;
    const avatar = input.avatar ? await checkAvatar(input.avatar) : null;
    const email = input.email?.trim();
    const givesUp = email !== undefined && normalizeEmail(email) !== current.emailKey ? current.email : null;
    if (email !== undefined && givesUp !== null) await this.accounts.claimEmail(email, userId, metadata);
    if (avatar) {
      const key = `avatars/${userId}/${crypto.randomUUID()}.${avatar.extension}`;
      await this.blobs.put(key, avatar.bytes, { contentType: avatar.type });
      await this.accounts.execute(userId, { type: "ChangeAvatar", key, contentType: avatar.type, now: this.now().toISOString() }, metadata);
    }
    await this.accounts.execute(
      userId,
      { type: "UpdateProfile", name: input.name?.trim(), email: email === current.email ? undefined : email, now: this.now().toISOString() },
      metadata,
    );
    if (input.retention_days !== undefined) await this.retention.set(userId, input.retention_days, metadata);
    if (givesUp !== null)
      await pollUntil(async () => (await loadState(this.store, emailClaimStream(givesUp), claimDecider)).state.owner !== userId, releaseWaitMs);
    return (await this.accounts.findById(userId))!;
  }
}
