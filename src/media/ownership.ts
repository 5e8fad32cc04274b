import { isValidBlobKey } from "../blobs/port.ts";

/**
 * Whose media a blob key is. Keys are chosen by the server, never by a client: an upload's under
 * `uploads/<userId>/<128 random bits>/`, fetched media under `media/<userId>/<taskId>-<128 random bits>/`.
 * So a key under the user's own prefix was made by that user's own upload or fetch, and a task may read
 * media only there: naming another account's key (or a guess) finds nothing.
 */
export function ownsMediaKey(userId: number, key: string): boolean {
  // A valid key has no `..` segment, so `uploads/<id>/../<other>/` cannot climb out of the prefix.
  return isValidBlobKey(key) && (key.startsWith(`uploads/${userId}/`) || key.startsWith(`media/${userId}/`));
}
