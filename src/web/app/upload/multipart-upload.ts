/**
 * The multipart upload of one file (spec 4.3), without a browser: sign, every part straight to the storage URL
 * the API signs for it (several at a time, each retried a few times), then complete, which creates the task.
 * The transport does the I/O (the API's calls and the PUTs), so tests drive this with a fake one.
 */

export type UploadSession = { path: string; upload_id: string; part_size: number; part_count: number };
export type SignedPart = { url: string; headers: Record<string, string> };
/** `duration`: seconds, where the page knows it (a recording): the API then refuses at sign what the balance cannot pay. */
export type FileToUpload = { name: string; contentType: string; size: number; body: Blob; duration?: number };

/** An HTTP status from a part's PUT or a call to the API; 0 when no answer came (the network). */
export class TransferError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The upload was cancelled: by the user, or because the page went away. */
export class UploadCancelled extends Error {
  constructor() {
    super("The upload was cancelled.");
  }
}

/**
 * Every byte is stored but complete was refused (403: the balance; 429: 3 tasks in progress) or never answered.
 * The session stays open until it expires, so the same upload can be completed again later, without sending a byte.
 */
export class CompletionFailed extends Error {
  constructor(
    readonly reason: unknown,
    readonly session: UploadSession,
  ) {
    super(reason instanceof Error ? reason.message : "The upload could not be completed.");
  }
}

export interface UploadTransport<Created> {
  sign(file: FileToUpload): Promise<UploadSession>;
  signPart(session: UploadSession, partNumber: number): Promise<SignedPart>;
  /** PUTs `body` to the signed URL, calling `onProgress` with the bytes sent so far; rejects with a TransferError. */
  putPart(part: SignedPart, body: Blob, onProgress: (sent: number) => void, signal: AbortSignal): Promise<void>;
  complete(session: UploadSession, file: FileToUpload): Promise<Created>;
  abort(session: UploadSession): Promise<void>;
}

export type UploadOptions = {
  signal: AbortSignal;
  /** The bytes of the file sent so far; may go back when a part is sent again. */
  onProgress(sent: number): void;
  /** Parts in flight at once: 4 fills a loopback or LAN link without making every part slow. */
  concurrency?: number;
  /** Attempts per part before the upload fails. */
  attempts?: number;
  /** Wait before the n-th retry: this many ms, times n. */
  retryDelayMs?: number;
};

/**
 * What is worth another attempt: no answer at all (0), a timeout, a second PUT of a part still being written
 * (409), the rate limit, a server error, and a signed URL refused (403: it is signed afresh for each attempt).
 * A 400 (wrong length), 404 or 422 (an upload aborted or expired) would only fail again.
 */
export const retryable = (status: number) => status === 0 || status === 403 || status === 408 || status === 409 || status === 429 || status >= 500;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new UploadCancelled());
      },
      { once: true },
    );
  });

/** Sends every part, `concurrency` at a time; the first part that fails for good stops the others. */
export async function uploadParts<Created>(
  transport: UploadTransport<Created>,
  session: UploadSession,
  file: FileToUpload,
  options: UploadOptions,
): Promise<void> {
  const { concurrency = 4, attempts = 4, retryDelayMs = 500 } = options;
  // Its own controller, so that a part failing for good aborts the parts still in flight.
  const stop = new AbortController();
  const cancel = () => stop.abort();
  options.signal.addEventListener("abort", cancel, { once: true });
  const sentByPart = new Map<number, number>();
  const report = (part: number, sent: number) => {
    sentByPart.set(part, sent);
    let total = 0;
    for (const value of sentByPart.values()) total += value;
    options.onProgress(total);
  };
  const sendPart = async (part: number) => {
    const body = file.body.slice((part - 1) * session.part_size, Math.min(part * session.part_size, file.size));
    for (let attempt = 1; ; attempt++) {
      if (stop.signal.aborted) throw new UploadCancelled();
      try {
        const signed = await transport.signPart(session, part);
        await transport.putPart(signed, body, (sent) => report(part, sent), stop.signal);
        report(part, body.size);
        return;
      } catch (error) {
        if (stop.signal.aborted || error instanceof UploadCancelled) throw new UploadCancelled();
        const status = error instanceof TransferError ? error.status : 0;
        if (attempt >= attempts || !retryable(status)) throw error;
        report(part, 0);
        await sleep(retryDelayMs * attempt, stop.signal);
      }
    }
  };
  let next = 1;
  const worker = async () => {
    while (next <= session.part_count) await sendPart(next++);
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, session.part_count) }, () =>
        worker().catch((error: unknown) => {
          stop.abort();
          throw error;
        }),
      ),
    );
  } finally {
    options.signal.removeEventListener("abort", cancel);
  }
  if (options.signal.aborted) throw new UploadCancelled();
}

/**
 * The whole upload: sign, parts, complete. When it is cancelled, or a part fails for good, the upload is aborted
 * on the server (its parts deleted) rather than left for the 24-hour expiry; the error is then thrown on.
 */
export async function uploadFile<Created>(transport: UploadTransport<Created>, file: FileToUpload, options: UploadOptions): Promise<Created> {
  if (options.signal.aborted) throw new UploadCancelled();
  const session = await transport.sign(file);
  try {
    await uploadParts(transport, session, file, options);
    if (options.signal.aborted) throw new UploadCancelled();
  } catch (error) {
    await transport.abort(session).catch(() => undefined);
    throw error;
  }
  try {
    return await transport.complete(session, file);
  } catch (error) {
    throw new CompletionFailed(error, session);
  }
}
