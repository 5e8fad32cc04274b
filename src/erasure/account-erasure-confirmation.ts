import { ForbiddenError, ValidationFailedError } from "../core/errors.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Caller } from "../accounts/service.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { CredentialDocument } from "../accounts/credentials-projection.ts";
import { verifyPassword } from "../accounts/secrets.ts";

/** How recent a sign-in must be to erase an account that has no password (signed up through the identity provider). */
export const freshSignInMs = 5 * 60 * 1000;

export const apiKeyRefused = "An API key cannot delete an account: sign in (a login token or the web app) and confirm with your password.";
export const wrongPassword = "The password is incorrect.";
export const signInAgain = "Your account has no password: sign in again, then delete the account within 5 minutes of signing in.";

/**
 * Whether this request may erase the caller's account: never with an API key (403: a leaked key must not destroy
 * the account); with the account's password when it has one (422 when it is missing, 403 when it is wrong, as
 * slowly as a login, each check counted first by `throttle`, the login's limit on the account's email, so that a
 * stolen token cannot guess the password at hashing speed); else, for an account made through the identity provider,
 * with a token or session issued within the last 5 minutes (403 otherwise), as proof that its owner has just signed in.
 */
export async function confirmErasure(
  db: DocumentStore,
  caller: Caller,
  user: Pick<UserDocument, "passwordHash">,
  password: string | undefined,
  now: Date,
  throttle: () => Promise<void> = async () => {},
): Promise<void> {
  if (caller.kind === "api_key") throw new ForbiddenError(apiKeyRefused);
  if (user.passwordHash !== null) {
    if (password === undefined) throw new ValidationFailedError({ password: ["The password field is required to delete the account."] });
    await throttle();
    if (!(await verifyPassword(password, user.passwordHash))) throw new ForbiddenError(wrongPassword);
    return;
  }
  const credential = await db.collection<CredentialDocument>("credentials").findOne({ _id: `${caller.kind}:${caller.credentialId}` });
  if (!credential || now.getTime() - Date.parse(credential.createdAt) > freshSignInMs) throw new ForbiddenError(signInAgain);
}
