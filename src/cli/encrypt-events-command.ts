import type { Config } from "../config.ts";
import { openDataKeyStore } from "../erasure/open-data-keys.ts";
import { encryptStoredEvents, EncryptEventsRefused, refuseImmutableLog } from "../erasure/encrypt-events.ts";

/** `encrypt-events` (src/erasure/encrypt-events.ts): its own key store, closed when done. */
export async function runEncryptEvents(config: Config): Promise<number> {
  try {
    refuseImmutableLog(config);
  } catch (error) {
    if (!(error instanceof EncryptEventsRefused)) throw error;
    console.error(`admin: ${error.message}`);
    return 1;
  }
  const keys = openDataKeyStore(config);
  try {
    const { read, encrypted, deletedTasks, clear } = await encryptStoredEvents(config, keys);
    console.log(`encrypt-events: ${read} events read, ${encrypted} had personal fields in the clear and are now encrypted`);
    console.log(`encrypt-events: ${deletedTasks} tasks deleted before encryption were erased first (their personal fields now read "[erased]")`);
    if (clear > 0) console.log(`encrypt-events: ${clear} events stay in the clear: their streams name no owner, so no key could be chosen`);
    return 0;
  } finally {
    await keys.close();
  }
}
