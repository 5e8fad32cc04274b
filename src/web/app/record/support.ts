/**
 * Whether this page can record, and why a microphone could not be opened, in words that say what to do. Pure
 * over the few browser facts they read (the panel reads them), so they are tested without a browser.
 */

/** The browser facts recording depends on. */
export type RecordingEnvironment = { isSecureContext: boolean; hasGetUserMedia: boolean; hasMediaRecorder: boolean };

/**
 * null when Record can be offered; else why not. Browsers give the microphone to secure pages only (https, or
 * localhost): over plain http at a LAN address `navigator.mediaDevices` is simply absent, which would otherwise
 * read as an old browser.
 */
export function recordingUnavailable(environment: RecordingEnvironment): string | null {
  if (!environment.isSecureContext) {
    return (
      "Recording needs a secure connection: browsers lend the microphone only to pages opened over https (or at localhost). " +
      "Open Scribe at its https address to record, or upload a recording made elsewhere."
    );
  }
  if (!environment.hasGetUserMedia || !environment.hasMediaRecorder) {
    return "This browser cannot record audio. Use a recent Firefox, Chrome, Edge or Safari, or upload a recording made elsewhere.";
  }
  return null;
}

/** The same refusal for a browser that records only types the server does not take (none is known today). */
export const noAcceptedType =
  "This browser records audio in no format the server accepts. Use a recent Firefox, Chrome, Edge or Safari, or upload a recording made elsewhere.";

/**
 * Why getUserMedia (or the recorder after it) failed, by the DOMException's name
 * (https://w3c.github.io/mediacapture-main/#dom-mediadevices-getusermedia): the person refused, or the browser or
 * the system did (NotAllowedError; SecurityError where a policy forbids it); no microphone (NotFoundError); one
 * that another program holds or that failed to start (NotReadableError, AbortError).
 */
export function microphoneProblem(error: unknown): string {
  const name = typeof error === "object" && error !== null && "name" in error ? String(error.name) : "";
  switch (name) {
    case "NotAllowedError":
    case "PermissionDeniedError":
    case "SecurityError":
      return (
        "Scribe may not use the microphone. To record, allow it for this site: open the site settings from the icon left of the address " +
        "(a lock, or a crossed-out microphone), set Microphone to Allow, then press Record again. " +
        "If it is allowed there, check that your system's privacy settings let this browser use the microphone."
      );
    case "NotFoundError":
    case "DevicesNotFoundError":
    case "OverconstrainedError":
      return "No microphone was found. Connect one, or switch it on, then press Record again.";
    case "NotReadableError":
    case "TrackStartError":
    case "AbortError":
      return "The microphone could not be started: another program may be using it. Close that program, then press Record again.";
    default:
      return "The microphone could not be started. Press Record to try again, or upload a recording made elsewhere.";
  }
}
