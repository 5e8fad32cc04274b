import { assertNever, type Decider } from "../core/decider.ts";
import { NotFoundError, ValidationFailedError } from "../core/errors.ts";
import type { UploadEvent, UploadSession } from "./events.ts";

export type Completion = Omit<Extract<UploadEvent, { type: "UploadCompleted" }>["data"], "userId" | "completedAt">;

export type UploadCommand =
  | { type: "SignUpload"; session: UploadSession }
  /** Allowed or refused (no event): may this caller send part `partNumber` now? */
  | { type: "AuthorizePart"; userId: number; key: string; partNumber: number; now: string }
  | { type: "CompleteUpload"; userId: number; key: string; completion: Completion; now: string }
  | { type: "AbortUpload"; userId: number; key: string; now: string }
  | { type: "ExpireUpload"; now: string };

export type UploadState =
  | { status: "none" }
  | { status: "open" | "aborted" | "expired"; session: UploadSession }
  | { status: "completed"; session: UploadSession; completion: Completion };

type Existing = Exclude<UploadState, { status: "none" }>;

const notFound = () => new NotFoundError("Upload session not found.");
const refuse = (message: string) => new ValidationFailedError({ upload_id: [message] }, message);

/** The caller's own session for this path; another user's session is "not found", like their tasks. */
export function ownSession(state: UploadState, userId: number, key: string): Existing {
  if (state.status === "none" || state.session.userId !== userId) throw notFound();
  if (state.session.key !== key) throw new ValidationFailedError({ path: ["The path is not the one this upload was signed for."] });
  return state;
}

/** Throws unless parts may still be sent and the upload completed. */
export function assertOpen(state: Existing, now: string): void {
  switch (state.status) {
    case "open":
      if (Date.parse(now) >= Date.parse(state.session.expiresAt)) {
        throw refuse(`This upload session expired at ${state.session.expiresAt}; sign the upload again.`);
      }
      return;
    case "completed":
      throw refuse("This upload is already complete.");
    case "aborted":
      throw refuse("This upload was aborted.");
    case "expired":
      throw refuse(`This upload session expired at ${state.session.expiresAt}; sign the upload again.`);
    default:
      assertNever(state);
  }
}

export const uploadDecider: Decider<UploadState, UploadCommand, UploadEvent> = {
  initialState: () => ({ status: "none" }),

  evolve(state, event) {
    if (event.type === "UploadSigned") return { status: "open", session: event.data };
    if (state.status === "none") return state;
    switch (event.type) {
      case "UploadCompleted": {
        const { userId: _u, completedAt: _c, ...completion } = event.data;
        return { status: "completed", session: state.session, completion };
      }
      case "UploadAborted":
        return { status: "aborted", session: state.session };
      case "UploadExpired":
        return { status: "expired", session: state.session };
      default:
        return assertNever(event);
    }
  },

  decide(command, state) {
    switch (command.type) {
      case "SignUpload":
        return state.status === "none" ? [{ type: "UploadSigned", data: command.session }] : [];
      case "AuthorizePart": {
        const session = ownSession(state, command.userId, command.key);
        assertOpen(session, command.now);
        const { partCount } = session.session;
        if (command.partNumber > partCount) {
          throw new ValidationFailedError({
            part_number: [`This upload has ${partCount} part${partCount === 1 ? "" : "s"}; part_number must be 1 to ${partCount}.`],
          });
        }
        return [];
      }
      case "CompleteUpload": {
        const session = ownSession(state, command.userId, command.key);
        // Completing twice is completing once: the caller reads the task id from the state.
        if (session.status === "completed") return [];
        assertOpen(session, command.now);
        return [{ type: "UploadCompleted", data: { userId: command.userId, ...command.completion, completedAt: command.now } }];
      }
      case "AbortUpload": {
        const session = ownSession(state, command.userId, command.key);
        if (session.status === "completed") throw refuse("This upload is already complete; delete its task instead.");
        if (session.status !== "open") return [];
        return [{ type: "UploadAborted", data: { userId: command.userId, abortedAt: command.now } }];
      }
      case "ExpireUpload":
        if (state.status !== "open" || Date.parse(command.now) < Date.parse(state.session.expiresAt)) return [];
        return [{ type: "UploadExpired", data: { userId: state.session.userId, expiredAt: command.now } }];
      default:
        return assertNever(command);
    }
  },
};
