import { join } from "node:path";
import type { DataKeyStore } from "./data-keys.ts";
import { MongoDataKeyStore } from "./mongodb-data-keys.ts";
import { dataKeysFile, SqliteDataKeyStore } from "./sqlite-data-keys.ts";

/**
 * The data-key store of this profile: MongoDB's `data_keys` collection when MONGODB_URL is set (the cluster, where
 * every process must see one store), else the embedded file `DATA_DIR/keys/data-keys.sqlite`.
 */
/** Where the stores are (the service's Config has these fields; a capability does not import the root's types). */
export type DataKeyStoreLocation = { dataDir: string; mongodbUrl: string | null; mongodbDatabase: string };

export function openDataKeyStore(config: DataKeyStoreLocation): DataKeyStore {
  if (config.mongodbUrl) return new MongoDataKeyStore(config.mongodbUrl, config.mongodbDatabase);
  return new SqliteDataKeyStore(join(config.dataDir, dataKeysFile));
}
