import { TransferError, UploadCancelled, type SignedPart } from "./multipart-upload.ts";

/**
 * Headers a page may not set (the browser sets them itself, and complains on the console if asked): an S3 URL
 * that signs Content-Length still gets it, from the body.
 */
const setByBrowser = new Set(["content-length", "host", "connection", "expect", "transfer-encoding"]);

/**
 * PUTs one part to its signed storage URL with XMLHttpRequest: Chromium's fetch reports no upload progress,
 * XHR's `upload.onprogress` does. Rejects with a TransferError (status 0 when there was no answer), or
 * UploadCancelled when `signal` aborts it.
 */
export function putPart(part: SignedPart, body: Blob, onProgress: (sent: number) => void, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UploadCancelled());
    const request = new XMLHttpRequest();
    request.open("PUT", part.url);
    for (const [name, value] of Object.entries(part.headers)) {
      if (!setByBrowser.has(name.toLowerCase())) request.setRequestHeader(name, value);
    }
    const abort = () => request.abort();
    signal.addEventListener("abort", abort, { once: true });
    const settle = () => signal.removeEventListener("abort", abort);
    request.upload.onprogress = (event) => onProgress(event.loaded);
    request.onload = () => {
      settle();
      if (request.status >= 200 && request.status < 300) resolve();
      else reject(new TransferError(request.status, `The storage refused a part (${request.status}).`));
    };
    request.onerror = () => {
      settle();
      reject(new TransferError(0, "The connection to the storage was lost."));
    };
    request.ontimeout = request.onerror;
    request.onabort = () => {
      settle();
      reject(new UploadCancelled());
    };
    request.send(body);
  });
}
